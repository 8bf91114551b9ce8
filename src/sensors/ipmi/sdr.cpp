// SPDX-License-Identifier: BSD-3-Clause
// IPMI 2.0 §33 (SDR repository), §43.1 (Full Sensor Record), §35.14 (Get
// Sensor Reading) and §36.3 (the linear conversion).
#include "sensors/ipmi/sdr.hpp"

#include "sensors/ipmi/readings.hpp"
#include "sensors/ipmi/wire.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <set>
#include <string_view>

namespace jp::sensors::ipmi {
namespace {

constexpr std::uint8_t k_netfn_sensor = 0x04;
constexpr std::uint8_t k_netfn_storage = 0x0A;
constexpr std::uint8_t k_cmd_sensor_reading = 0x2D;
constexpr std::uint8_t k_cmd_repository_info = 0x20;
constexpr std::uint8_t k_cmd_reserve = 0x22;
constexpr std::uint8_t k_cmd_get_sdr = 0x23;
constexpr std::uint8_t k_reservation_cancelled = 0xC5;

constexpr std::uint8_t k_bmc_address = 0x20;
constexpr std::uint8_t k_full_sensor_record = 0x01;
constexpr std::uint8_t k_threshold_reading = 0x01;
constexpr std::uint8_t k_unit_watts = 6;
constexpr std::uint8_t k_no_analog_reading = 3;

// Offsets in a whole record (header included), §43.1 byte N is index N-1.
constexpr std::size_t k_header_size = 5;
constexpr std::size_t k_reading_type = 13;
constexpr std::size_t k_units1 = 20;
constexpr std::size_t k_id_code = 47;
constexpr std::size_t k_full_min_size = k_id_code + 1; // an empty ID string
constexpr std::size_t k_id_max = 16;

constexpr std::uint16_t k_first_record = 0x0000;
constexpr std::uint16_t k_last_record = 0xFFFF;
constexpr std::size_t k_max_records = 4096; // real repositories hold tens to hundreds
constexpr int k_max_cancellations = 8;      // per Get SDR piece
constexpr std::size_t k_first_piece = 32;   // bytes per Get SDR until the BMC refuses
constexpr std::size_t k_min_piece = 4;
constexpr std::size_t k_max_offset = 0xFF; // Get SDR's offset is one byte

constexpr std::string_view k_where_info = "Get SDR Repository Info (NetFn 0x0A cmd 0x20)";
constexpr std::string_view k_where_reserve = "Reserve SDR Repository (NetFn 0x0A cmd 0x22)";
constexpr std::string_view k_hint =
    "`ipmitool sdr list full` shows what the BMC's repository holds";

std::uint8_t low(std::uint16_t v) {
    return static_cast<std::uint8_t>(v & 0xFFU);
}
std::uint8_t high(std::uint16_t v) {
    return static_cast<std::uint8_t>(v >> 8U);
}

// The two's complement value of the low `bits` bits.
int sign_extend(unsigned value, unsigned bits) {
    const unsigned sign = 1U << (bits - 1);
    const unsigned v = value & ((1U << bits) - 1);
    return static_cast<int>(v ^ sign) - static_cast<int>(sign);
}

std::string get_sdr_where(std::uint16_t record_id) {
    return fmt::format("Get SDR (NetFn 0x0A cmd 0x23) record 0x{:04X}", record_id);
}

auto bmc_refused(std::string where, std::uint8_t completion) {
    return fail(ErrorKind::io, std::move(where),
                fmt::format("the BMC answered {}", completion_text(completion)),
                std::string{k_hint});
}

// The reading is watts, not watts per hour, a percentage of watts, or kilo-anything.
bool plain_watts(std::span<const std::uint8_t> r) {
    const unsigned units1 = r[k_units1];
    const bool percentage = (units1 & 0x01U) != 0;
    const bool modified = (units1 & 0x06U) != 0 && r[k_units1 + 2] != 0;
    const bool rate = (units1 & 0x38U) != 0;
    return r[k_units1 + 1] == k_unit_watts && !percentage && !modified && !rate;
}

// 6-bit packed ASCII (§43.15): four characters in three bytes, low bits first.
std::string unpack_6bit(std::span<const std::uint8_t> bytes) {
    std::string out;
    unsigned acc = 0;
    unsigned bits = 0;
    for (const std::uint8_t b : bytes) {
        acc |= static_cast<unsigned>(b) << bits;
        for (bits += 8; bits >= 6; bits -= 6) {
            out.push_back(static_cast<char>((acc & 0x3FU) + 0x20U));
            acc >>= 6U;
        }
    }
    return out;
}

// The ID string as one printable line: 6-bit packed decoded, other forms taken
// byte for byte as ipmitool does, cut at a NUL, trailing blanks dropped.
std::string id_string(std::span<const std::uint8_t> r) {
    const unsigned code = r[k_id_code];
    const std::size_t declared = code & 0x1FU;
    const auto length = std::min({declared, k_id_max, r.size() - k_full_min_size});
    const auto bytes = r.subspan(k_full_min_size, length);
    std::string name =
        (code >> 6U) == 2 ? unpack_6bit(bytes) : std::string(bytes.begin(), bytes.end());
    name = name.substr(0, name.find('\0'));
    for (char& c : name) {
        if (std::isprint(static_cast<unsigned char>(c)) == 0) {
            c = '?';
        }
    }
    name.erase(name.find_last_not_of(' ') + 1);
    return name;
}

// One power supply's reading ("PS1 Input Power", "PSU2 Total"), not the node's.
bool names_one_supply(std::string_view lower) {
    for (const std::string_view prefix : {"psu", "ps"}) {
        if (lower.starts_with(prefix)) {
            const std::string_view rest = lower.substr(prefix.size());
            const std::size_t at = rest.find_first_not_of(" _-");
            return at != std::string_view::npos &&
                   std::isdigit(static_cast<unsigned char>(rest[at])) != 0;
        }
    }
    return false;
}

bool names_node(const std::string& name) {
    std::string lower = name;
    std::ranges::transform(lower, lower.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (names_one_supply(lower)) {
        return false;
    }
    constexpr std::array<std::string_view, 5> k_words{"total", "sys", "node", "consumption",
                                                      "meter"};
    return std::ranges::any_of(
        k_words, [&](std::string_view w) { return lower.find(w) != std::string::npos; });
}

// What one record's walk step gives: the next record's id and the record's
// bytes (the header alone unless it is a Full Sensor Record).
struct Record {
    std::uint16_t next = k_last_record;
    std::vector<std::uint8_t> bytes;
};

// Reads records with Get SDR in pieces under a reservation, shrinking the
// piece when the BMC refuses it and reserving again when it cancels ours.
class SdrReader {
public:
    explicit SdrReader(Transport& transport) : m_transport(transport) {}

    Result<void> reserve();
    Result<Record> read(std::uint16_t record_id);

private:
    Result<Response> get_sdr(std::uint16_t record_id, std::size_t offset, std::size_t count);
    Result<std::uint16_t>
    read_range(std::uint16_t record_id, std::size_t end, std::vector<std::uint8_t>& out);

    Transport& m_transport;
    std::uint16_t m_reservation = 0;
    std::size_t m_piece = k_first_piece;
};

Result<void> SdrReader::reserve() {
    auto reply = m_transport.call({k_netfn_storage, k_cmd_reserve, {}});
    if (!reply) {
        return std::unexpected(reply.error());
    }
    if (reply->completion != 0x00) {
        return bmc_refused(std::string{k_where_reserve}, reply->completion);
    }
    if (reply->data.size() < 2) {
        return fail(ErrorKind::parse, std::string{k_where_reserve},
                    fmt::format("reply of {} bytes, 2 expected", reply->data.size()));
    }
    m_reservation = get16(reply->data, 0);
    return {};
}

// One Get SDR call; a cancelled reservation is renewed and the call repeated.
Result<Response>
SdrReader::get_sdr(std::uint16_t record_id, std::size_t offset, std::size_t count) {
    for (int cancelled = 0;; ++cancelled) {
        const Request request{k_netfn_storage,
                              k_cmd_get_sdr,
                              {low(m_reservation), high(m_reservation), low(record_id),
                               high(record_id), static_cast<std::uint8_t>(offset),
                               static_cast<std::uint8_t>(count)}};
        auto reply = m_transport.call(request);
        if (!reply || reply->completion != k_reservation_cancelled ||
            cancelled == k_max_cancellations) {
            return reply;
        }
        if (auto ok = reserve(); !ok) {
            return std::unexpected(ok.error());
        }
    }
}

bool piece_too_large(std::uint8_t completion) {
    // 0xCA is the specification's answer; BMCs also say 0xC7, 0xC8 or 0xFF.
    return completion == 0xCA || completion == 0xC7 || completion == 0xC8 || completion == 0xFF;
}

// Appends the record's bytes from out.size() up to `end`; gives the next record's id.
Result<std::uint16_t>
SdrReader::read_range(std::uint16_t record_id, std::size_t end, std::vector<std::uint8_t>& out) {
    std::uint16_t next = k_last_record;
    while (out.size() < end) {
        const std::size_t count = std::min(m_piece, end - out.size());
        auto reply = get_sdr(record_id, out.size(), count);
        if (!reply) {
            return std::unexpected(reply.error());
        }
        if (piece_too_large(reply->completion) && count > k_min_piece) {
            m_piece = std::max(count / 2, k_min_piece);
            continue;
        }
        if (reply->completion != 0x00) {
            return bmc_refused(get_sdr_where(record_id), reply->completion);
        }
        if (reply->data.size() <= 2) {
            return fail(ErrorKind::parse, get_sdr_where(record_id),
                        fmt::format("reply of {} bytes at offset {}: no record bytes",
                                    reply->data.size(), out.size()),
                        std::string{k_hint});
        }
        next = get16(reply->data, 0);
        const std::size_t got = std::min(reply->data.size() - 2, count);
        out.insert(out.end(), reply->data.begin() + 2,
                   reply->data.begin() + static_cast<std::ptrdiff_t>(2 + got));
    }
    return next;
}

Result<Record> SdrReader::read(std::uint16_t record_id) {
    Record record;
    auto next = read_range(record_id, k_header_size, record.bytes);
    if (!next) {
        return std::unexpected(next.error());
    }
    record.next = *next;
    const std::size_t size = k_header_size + record.bytes[4];
    // Only Full Sensor Records can be power sensors; a longer one than one-byte
    // offsets reach is none (they end at 64 bytes).
    if (record.bytes[3] == k_full_sensor_record && size <= k_max_offset + 1) {
        if (auto body = read_range(record_id, size, record.bytes); !body) {
            return std::unexpected(body.error());
        }
    }
    return record;
}

// The repository's record count.
Result<std::uint16_t> repository_count(Transport& transport) {
    auto reply = transport.call({k_netfn_storage, k_cmd_repository_info, {}});
    if (!reply) {
        return std::unexpected(reply.error());
    }
    if (reply->completion != 0x00) {
        return bmc_refused(std::string{k_where_info}, reply->completion);
    }
    if (reply->data.size() < 3) {
        return fail(ErrorKind::parse, std::string{k_where_info},
                    fmt::format("reply of {} bytes, at least 3 expected", reply->data.size()));
    }
    return get16(reply->data, 1);
}

} // namespace

std::optional<SdrPowerSensor> parse_power_record(std::span<const std::uint8_t> record) {
    if (record.size() < k_header_size) {
        return std::nullopt;
    }
    const std::size_t size = k_header_size + record[4];
    if (record[3] != k_full_sensor_record || size < k_full_min_size || record.size() < size) {
        return std::nullopt;
    }
    const auto r = record.first(size);
    const auto format = static_cast<std::uint8_t>(r[k_units1] >> 6U);
    const auto linearization = static_cast<std::uint8_t>(r[23] & 0x7FU);
    if (r[k_reading_type] != k_threshold_reading || format == k_no_analog_reading ||
        linearization != 0 || !plain_watts(r)) {
        return std::nullopt;
    }
    SdrPowerSensor s;
    s.name = id_string(r);
    s.record_id = get16(r, 0);
    s.owner = r[5];
    s.lun = static_cast<std::uint8_t>(r[6] & 0x03U);
    s.number = r[7];
    s.entity = r[8];
    s.m = sign_extend(r[24] | ((r[25] & 0xC0U) << 2U), 10);
    s.b = sign_extend(r[26] | ((r[27] & 0xC0U) << 2U), 10);
    s.r_exp = sign_extend(r[29] >> 4U, 4);
    s.b_exp = sign_extend(r[29] & 0x0FU, 4);
    s.analog_format = format;
    s.linearization = linearization;
    return s;
}

double to_watts(const SdrPowerSensor& sensor, std::uint8_t raw) noexcept {
    int x = raw;
    if (sensor.analog_format == 1 && (raw & 0x80U) != 0) {
        x = -static_cast<int>(0x7FU & ~static_cast<unsigned>(raw)); // one's complement: 0xFF is -0
    } else if (sensor.analog_format == 2) {
        x = sign_extend(raw, 8);
    }
    return (sensor.m * x + sensor.b * std::pow(10.0, sensor.b_exp)) * std::pow(10.0, sensor.r_exp);
}

Result<std::vector<SdrPowerSensor>> find_power_sensors(Transport& transport) {
    auto count = repository_count(transport);
    if (!count) {
        return std::unexpected(count.error());
    }
    std::vector<SdrPowerSensor> sensors;
    if (*count == 0) {
        return sensors;
    }
    SdrReader reader(transport);
    if (auto ok = reader.reserve(); !ok) {
        return std::unexpected(ok.error());
    }
    std::set<std::uint16_t> seen;
    for (std::uint16_t id = k_first_record; id != k_last_record;) {
        if (seen.size() == k_max_records) {
            return fail(
                ErrorKind::parse, get_sdr_where(id),
                fmt::format("more than {} records (the BMC reports {})", k_max_records, *count),
                std::string{k_hint});
        }
        auto record = reader.read(id);
        if (!record) {
            return std::unexpected(record.error());
        }
        seen.insert(id);
        if (seen.contains(record->next)) {
            return fail(ErrorKind::parse, get_sdr_where(id),
                        fmt::format("next record 0x{:04X} was read before (a loop)", record->next),
                        std::string{k_hint});
        }
        if (auto s = parse_power_record(record->bytes); s && s->owner == k_bmc_address) {
            sensors.push_back(std::move(*s));
        }
        id = record->next;
    }
    return sensors;
}

Result<double> read_watts(Transport& transport, const SdrPowerSensor& sensor) {
    const std::string where =
        fmt::format("Get Sensor Reading (NetFn 0x04 cmd 0x2D) sensor 0x{:02X} \"{}\"",
                    sensor.number, sensor.name);
    if (sensor.owner != k_bmc_address) {
        return fail(ErrorKind::unsupported, where,
                    fmt::format("owned by controller 0x{:02X}, not the BMC (0x20)", sensor.owner));
    }
    auto reply =
        transport.call({k_netfn_sensor, k_cmd_sensor_reading, {sensor.number}, sensor.lun});
    if (!reply) {
        return std::unexpected(reply.error());
    }
    if (reply->completion != 0x00) {
        return bmc_refused(where, reply->completion);
    }
    if (reply->data.size() < 2) {
        return fail(ErrorKind::parse, where,
                    fmt::format("reply of {} bytes, at least 2 expected", reply->data.size()));
    }
    const std::uint8_t flags = reply->data[1];
    if ((flags & 0x20U) != 0) {
        return fail(ErrorKind::io, where, "the BMC says the reading is unavailable");
    }
    if ((flags & 0x40U) == 0) {
        return fail(ErrorKind::unsupported, where, "the sensor's scanning is disabled");
    }
    return to_watts(sensor, reply->data[0]);
}

std::optional<SdrPowerSensor> pick_node_sensor(const std::vector<SdrPowerSensor>& sensors) {
    if (sensors.empty()) {
        return std::nullopt;
    }
    if (auto it = std::ranges::find_if(sensors, [](const auto& s) { return names_node(s.name); });
        it != sensors.end()) {
        return *it;
    }
    if (auto it = std::ranges::find_if(sensors, [](const auto& s) { return s.entity == 0x07; });
        it != sensors.end()) {
        return *it;
    }
    return sensors.front();
}

} // namespace jp::sensors::ipmi
