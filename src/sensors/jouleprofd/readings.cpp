// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/jouleprofd/readings.hpp"

#include "daemon_client/hello.hpp"
#include "daemon_client/json_field.hpp"
#include "trace/time_range.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace jp::sensors::jouleprofd {
namespace {

static_assert(daemon::k_max_daemon_clock_ns <= trace::k_max_time_ns,
              "a daemon time less a clock offset must fit std::int64_t");

// (channel, t, value) from JSON values; nullopt for what is not a reading.
std::optional<Reading> reading(const nlohmann::json& channel,
                               const nlohmann::json& t,
                               const nlohmann::json& value,
                               std::int64_t clock_offset_ns) {
    const auto index = daemon::integer_in(channel, 0, std::numeric_limits<int>::max());
    const auto daemon_ns = daemon::integer_in(t, -trace::k_max_time_ns, trace::k_max_time_ns);
    // Both terms within ±2^61 and ±2^62 (a hello's offset, hello.hpp): the difference fits.
    constexpr auto k_max_offset = 2 * daemon::k_max_daemon_clock_ns;
    if (!index || !daemon_ns || !value.is_number() || clock_offset_ns < -k_max_offset ||
        clock_offset_ns > k_max_offset) {
        return std::nullopt;
    }
    const auto v = value.get<double>();
    const auto local = *daemon_ns - clock_offset_ns;
    if (!std::isfinite(v) || !trace::time_in_range(local)) {
        return std::nullopt;
    }
    return Reading{static_cast<int>(*index), local, v};
}

} // namespace

std::vector<Reading> reply_readings(const nlohmann::json& reply, std::int64_t clock_offset_ns) {
    std::vector<Reading> out;
    const auto values = reply.find("values"); // end() when reply is not an object
    if (values == reply.end() || !values->is_array()) {
        return out;
    }
    for (const auto& v : *values) {
        if (v.is_array() && v.size() == 3) {
            if (auto r = reading(v[0], v[1], v[2], clock_offset_ns)) {
                out.push_back(*r);
            }
        }
    }
    return out;
}

std::vector<std::pair<int, std::int64_t>> reply_read_times(const nlohmann::json& reply) {
    std::vector<std::pair<int, std::int64_t>> out;
    const auto rows = reply.find("read_ns"); // end() when reply is not an object
    if (rows == reply.end() || !rows->is_array()) {
        return out;
    }
    for (const auto& row : *rows) {
        if (!row.is_array() || row.size() != 2) {
            continue;
        }
        const auto index = daemon::integer_in(row[0], 0, std::numeric_limits<int>::max());
        const auto ns = daemon::integer_in(row[1], 0, std::numeric_limits<std::int64_t>::max());
        // A call over a minute counts as a minute: the bound widens, never narrows.
        if (index && ns) {
            out.emplace_back(static_cast<int>(*index), std::min(*ns, trace::k_max_read_ns));
        }
    }
    return out;
}

std::vector<Reading> stream_readings(const nlohmann::json& event,
                                     std::string_view session,
                                     std::int64_t clock_offset_ns) {
    std::vector<Reading> out;
    if (!event.is_object()) {
        return out;
    }
    const auto kind = event.find("event");
    const auto id = event.find("session");
    const auto data = event.find("data");
    if (kind == event.end() || *kind != "samples" || id == event.end() || !id->is_string() ||
        id->get_ref<const std::string&>() != session || data == event.end() || !data->is_array()) {
        return out;
    }
    for (const auto& row : *data) {
        if (!row.is_array() || row.size() < 4 || row.size() % 2 != 0) {
            continue; // channel, first_seq, then (t, v) pairs
        }
        const std::size_t last = row.size() - 2; // the newest (t, v) pair
        if (auto r = reading(row[0], row[last], row[last + 1], clock_offset_ns)) {
            out.push_back(*r);
        }
    }
    return out;
}

} // namespace jp::sensors::jouleprofd
