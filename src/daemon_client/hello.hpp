// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What jouleprofd says of itself and of this caller in its hello reply, read
// as untrusted input: the socket a user names may be anyone's.
#include "core/duration.hpp"

#include <cstdint>
#include <expected>
#include <nlohmann/json.hpp>
#include <string>

namespace jp::daemon {

struct HelloInfo {
    int version = 0;
    std::string daemon; // "jouleprofd 0.1.0"
    std::string access; // "full" or "floor"
    Nanos interval{};   // the daemon's sampling interval
    Nanos floor{};      // finest window of floored channels for this caller
    Nanos jitter{};     // floored windows last floor + up to this much
    int edge_burst = 0; // exact reads in a burst (0: unlimited)
    double edge_per_minute = 0;
    std::int64_t clock_offset_ns = 0; // daemon CLOCK_MONOTONIC − ours; 0 when they agree
};

// The longest interval, floor or jitter a daemon may name (a day), and the
// farthest its clock may read from zero (2^61 ns, 73 years): beyond them the
// reply is malformed, and within them no time computed from it overflows.
inline constexpr std::int64_t k_max_hello_ms = std::int64_t{24} * 3600 * 1000;
inline constexpr std::int64_t k_max_daemon_clock_ns = std::int64_t{1} << 61;

// The reply to hello, given our CLOCK_MONOTONIC just before and after the
// call (both within ±k_max_daemon_clock_ns); an error line for a malformed one.
[[nodiscard]] std::expected<HelloInfo, std::string>
parse_hello(const nlohmann::json& reply, std::int64_t before, std::int64_t after);

} // namespace jp::daemon
