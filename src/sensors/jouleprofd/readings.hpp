// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Readings in jouleprofd's replies and stream events, read as untrusted input
// (the socket a user names may be anyone's).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>
#include <vector>

namespace jp::sensors::jouleprofd {

struct Reading {
    int channel = 0;       // the daemon's index of the channel
    std::int64_t t_ns = 0; // our CLOCK_MONOTONIC
    double value = 0;
};

// A reading's time on our clock: the daemon's time less its clock's offset
// (daemon::HelloInfo::clock_offset_ns); nothing beyond what a trace may hold
// (trace::k_max_time_ns) is kept. Malformed rows are skipped, never thrown.
//
// A read or latest reply: {"values": [[channel, t_ns, value], ...]}.
[[nodiscard]] std::vector<Reading> reply_readings(const nlohmann::json& reply,
                                                  std::int64_t clock_offset_ns);
// The daemon's longest read call per channel, as a read reply gives it
// ({"read_ns": [[channel, ns], ...]}): (daemon channel index, ns); a row that is
// not two whole numbers or gives a negative call is skipped, a call over a minute
// counts as a minute (what a trace keeps: the bound widens, never narrows).
[[nodiscard]] std::vector<std::pair<int, std::int64_t>>
reply_read_times(const nlohmann::json& reply);
// A stream event of this session, {"event": "samples", "session": S, "data":
// [[channel, first_seq, t0, v0, t1, v1, ...], ...]}: the newest (t, v) of each row.
[[nodiscard]] std::vector<Reading> stream_readings(const nlohmann::json& event,
                                                   std::string_view session,
                                                   std::int64_t clock_offset_ns);

} // namespace jp::sensors::jouleprofd
