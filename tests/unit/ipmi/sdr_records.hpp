// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Sensor Data Records built from their fields for the SDR tests: the Full
// Sensor Record of real-peers.md Appendix B, a plain watts record, others.
#include "sensors/ipmi/sdr.hpp"

#include <cstdint>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace jp::sensors::ipmi::test {

using Bytes = std::vector<std::uint8_t>;

inline std::uint8_t lo(std::size_t v) {
    return static_cast<std::uint8_t>(v & 0xFFU);
}
inline std::uint8_t hi(std::size_t v) {
    return static_cast<std::uint8_t>((v >> 8U) & 0xFFU);
}

// The Full Sensor Record of real-peers.md Appendix B, as ipmi_sim's main_sdr_add takes it.
constexpr const char* k_sys_power_hex =
    "0x00 0x00 0x51 0x01 0x33 0x20 0x00 0x10 0x07 0x01 0x7f 0x00 0x0b 0x01 0x00 0x00 0x00 0x00 "
    "0x00 0x00 0x00 0x06 0x00 0x00 0x04 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0xff 0x00 "
    "0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0xc8 0x53 0x79 0x73 0x50 0x6f 0x77 "
    "0x65 0x72";

inline Bytes from_hex(const std::string& hex) {
    Bytes out;
    std::istringstream in(hex);
    std::string word;
    while (in >> word) {
        out.push_back(static_cast<std::uint8_t>(std::stoul(word, nullptr, 16)));
    }
    return out;
}

// A Full Sensor Record (§43.1) from its fields; the defaults are a plain watts sensor.
struct FullRecord {
    std::uint16_t id = 1;
    std::uint8_t owner = 0x20;
    std::uint8_t lun_byte = 0x00;
    std::uint8_t number = 0x10;
    std::uint8_t entity = 0x07;
    std::uint8_t reading_type = 0x01;
    std::uint8_t units1 = 0x00;
    std::uint8_t base_unit = 6;
    std::uint8_t modifier_unit = 0;
    std::uint8_t linearization = 0;
    int m = 1;
    int b = 0;
    int r_exp = 0;
    int b_exp = 0;
    std::string name = "Total_Power";
    int id_code = -1; // the ID string type/length byte; -1: 8-bit ASCII of name.size()

    [[nodiscard]] Bytes bytes() const {
        Bytes r(48, 0x00);
        r[0] = lo(id);
        r[1] = hi(id);
        r[2] = 0x51;
        r[3] = 0x01;
        r[5] = owner;
        r[6] = lun_byte;
        r[7] = number;
        r[8] = entity;
        r[9] = 0x01;
        r[12] = 0x0B;
        r[13] = reading_type;
        r[20] = units1;
        r[21] = base_unit;
        r[22] = modifier_unit;
        r[23] = linearization;
        const auto mv = static_cast<unsigned>(m) & 0x3FFU;
        const auto bv = static_cast<unsigned>(b) & 0x3FFU;
        r[24] = lo(mv);
        r[25] = static_cast<std::uint8_t>((mv >> 8U) << 6U);
        r[26] = lo(bv);
        r[27] = static_cast<std::uint8_t>((bv >> 8U) << 6U);
        r[29] = static_cast<std::uint8_t>(((static_cast<unsigned>(r_exp) & 0xFU) << 4U) |
                                          (static_cast<unsigned>(b_exp) & 0xFU));
        r[47] = id_code >= 0 ? static_cast<std::uint8_t>(id_code)
                             : static_cast<std::uint8_t>(0xC0U | name.size());
        r.insert(r.end(), name.begin(), name.end());
        r[4] = static_cast<std::uint8_t>(r.size() - 5);
        return r;
    }
};

// Any other record: the header and `body` bytes of zeros.
inline Bytes other_record(std::uint16_t id, std::uint8_t type, std::size_t body) {
    Bytes r{lo(id), hi(id), 0x51, type, static_cast<std::uint8_t>(body)};
    r.resize(5 + body, 0x00);
    return r;
}

inline SdrPowerSensor parsed(const FullRecord& f) {
    auto s = parse_power_record(f.bytes());
    if (!s) {
        throw std::runtime_error("record not parsed: " + f.name);
    }
    return *s;
}

inline bool one_line(const std::string& s) {
    return !s.empty() && s.find('\n') == std::string::npos;
}

} // namespace jp::sensors::ipmi::test
