// SPDX-License-Identifier: BSD-3-Clause
#include "daemon_client/hello.hpp"

#include "daemon_client/json_field.hpp"

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <optional>

namespace jp::daemon {
namespace {

// A whole number of milliseconds in 0..k_max_hello_ms; absent is 0.
std::optional<Nanos> ms(const nlohmann::json& j, const char* key) {
    const auto v = integer_field(j, key, 0, 0, k_max_hello_ms);
    return v ? std::optional<Nanos>{std::chrono::milliseconds{*v}} : std::nullopt;
}

} // namespace

std::expected<HelloInfo, std::string>
parse_hello(const nlohmann::json& reply, std::int64_t before, std::int64_t after) {
    const auto malformed = [](std::string_view why) {
        return std::unexpected(fmt::format("jouleprofd sent a malformed hello reply ({})", why));
    };
    if (!reply.is_object()) {
        return malformed("not an object");
    }
    try {
        HelloInfo h;
        constexpr std::int64_t k_int_max = std::numeric_limits<int>::max();
        const auto version = integer_field(reply, "version", 0, 0, k_int_max);
        if (!version) {
            return malformed("a version that is not a whole number");
        }
        h.version = static_cast<int>(*version);
        h.daemon = reply.value("daemon", "");
        h.access = reply.value("access", "");
        const auto interval = ms(reply, "interval_ms");
        const auto floor = ms(reply, "floor_ms");
        const auto jitter = ms(reply, "jitter_ms");
        if (!interval || !floor || !jitter) {
            return malformed(
                fmt::format("an interval, floor or jitter outside 0..{} ms", k_max_hello_ms));
        }
        h.interval = *interval;
        h.floor = *floor;
        h.jitter = *jitter;
        if (const auto e = reply.find("edge_reads"); e != reply.end() && e->is_object()) {
            const auto burst = integer_field(*e, "burst", 0, 0, k_int_max);
            h.edge_per_minute = e->value("per_minute", 0.0);
            if (!burst || !std::isfinite(h.edge_per_minute) || h.edge_per_minute < 0) {
                return malformed("edge_reads that are not counts");
            }
            h.edge_burst = static_cast<int>(*burst);
        }
        // Both clocks are CLOCK_MONOTONIC; they differ only across time namespaces.
        const auto daemon_now =
            integer_field(reply, "mono_ns", 0, -k_max_daemon_clock_ns, k_max_daemon_clock_ns);
        if (!daemon_now) {
            return malformed("a clock that is not whole nanoseconds within 2^61");
        }
        const auto mid = before + (after - before) / 2;
        const auto offset = *daemon_now - mid;
        if (std::llabs(offset) > (after - before) / 2 + 1'000'000) {
            h.clock_offset_ns = offset;
        }
        return h;
    } catch (const nlohmann::json::exception&) {
        return malformed("a field of the wrong type");
    }
}

} // namespace jp::daemon
