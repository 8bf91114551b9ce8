// SPDX-License-Identifier: BSD-3-Clause
// The reading operations: exact reads (spaced for floored callers, see
// docs/security.md), the latest readings a caller may see, and streams.
#include "core/clock.hpp"
#include "daemon/ops.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace jp::daemon::ops {
namespace {

json values_json(const std::vector<std::pair<std::size_t, Reading>>& values) {
    json out = json::array();
    for (const auto& [i, r] : values) {
        out.push_back({i, r.t_ns, r.value});
    }
    return out;
}

// [[channel, longest read call in ns], ...] for the channels whose calls are known.
json read_times_json(const Engine& engine) {
    json out = json::array();
    const auto times = engine.read_times();
    for (std::size_t i = 0; i < times.size(); ++i) {
        if (times[i] > 0) {
            out.push_back({i, times[i]});
        }
    }
    return out;
}

} // namespace

Reply op_read(DaemonState& d, Connection& c, const json& req, std::int64_t now) {
    auto s = session_of(d, c, req);
    auto edge = text_field(req, "edge", 8, "end");
    if (!s || !edge) {
        return std::unexpected(!s ? s.error() : edge.error());
    }
    if (*edge != "start" && *edge != "end") {
        return refuse(ErrorCode::bad_request, "'edge' must be start or end");
    }
    const auto& a = d.config.access;
    const bool floored = c.grant == Grant::floor && a.floor.count() > 0;
    // The counters were 0 at the daemon's start: no floored read within the floor of it.
    if (const auto since = now - d.engine.started_ns(); floored && since < a.floor.count()) {
        const auto wait_ms = (a.floor.count() - since + 999'999) / 1'000'000;
        return refuse(ErrorCode::too_soon,
                      fmt::format("jouleprofd started {} ms ago; exact reads of users outside "
                                  "the full-resolution groups begin {} ms after its start",
                                  since / 1'000'000, to_ms(a.floor)),
                      wait_ms);
    }
    if (const auto* last = floored ? d.spacing.recent(c.peer.uid, now, a.floor.count()) : nullptr) {
        if (*edge == "start") { // what the caller already holds, so the window covers the job
            // No read_ns: this answer is not rationed, and the read times are news only
            // with an exact read the budget pays for (docs/security.md).
            return json{{"t_ns", mono_ns()},
                        {"values", values_json(last->values)},
                        {"reused_ns", std::max<std::int64_t>(0, now - last->t_ns)}};
        }
        const auto wait_ms = (last->t_ns + a.floor.count() - now + 999'999) / 1'000'000;
        return refuse(ErrorCode::too_soon,
                      fmt::format("exact reads of users outside the full-resolution groups are "
                                  "at least {} ms apart; the next one is allowed in {} ms",
                                  to_ms(a.floor), wait_ms),
                      wait_ms);
    }
    if (auto ok = d.budget.take(c.peer.uid, c.grant, now, a); !ok.allowed) {
        return refuse(ErrorCode::rate_limited,
                      fmt::format("exact reads are limited to {} at once and {:g} per minute per "
                                  "user; the next one is allowed in {:.1f} s",
                                  a.edge_reads_burst, a.edge_reads_per_minute,
                                  static_cast<double>(ok.retry_after_ms) * 1e-3),
                      ok.retry_after_ms);
    }
    ++(*s)->exact_reads;
    std::vector<std::pair<std::size_t, Reading>> values;
    d.engine.read_now(values);
    std::int64_t last_t = now; // the newest exact value: the next is the floor after it
    if (floored && !values.empty()) {
        std::int64_t first_t = values.front().second.t_ns;
        last_t = first_t;
        for (const auto& [i, r] : values) {
            first_t = std::min(first_t, r.t_ns);
            last_t = std::max(last_t, r.t_ns);
        }
        d.engine.note_floored_read(first_t, last_t);
    }
    // Slow sources are not read on demand: their latest reading, as this caller may see it.
    for (std::size_t i = 0; i < d.engine.channels().size(); ++i) {
        const bool read = std::ranges::any_of(values, [&](const auto& v) { return v.first == i; });
        if (const auto& h = view(d, c.grant, i); !read && !h.empty()) {
            values.emplace_back(i, h.latest());
        }
    }
    auto reply = json{{"t_ns", mono_ns()},
                      {"values", values_json(values)},
                      {"read_ns", read_times_json(d.engine)}};
    if (floored) {
        d.spacing.remember(c.peer.uid, ExactRead{std::max(last_t, now), std::move(values)},
                           a.floor.count());
    }
    return reply;
}

Reply op_latest(DaemonState& d, Connection& c, const json& req, std::int64_t /*now*/) {
    auto s = session_of(d, c, req);
    if (!s) {
        return std::unexpected(s.error());
    }
    std::vector<std::pair<std::size_t, Reading>> values;
    for (std::size_t i = 0; i < d.engine.channels().size(); ++i) {
        if (const auto& h = view(d, c.grant, i); !h.empty()) {
            values.emplace_back(i, h.latest());
        }
    }
    auto reply = json{{"values", values_json(values)}};
    if (c.grant != Grant::floor) { // never rationed: floored callers get them with exact reads
        reply["read_ns"] = read_times_json(d.engine);
    }
    return reply;
}

Reply op_stream(DaemonState& d, Connection& c, const json& req, std::int64_t now) {
    auto s = session_of(d, c, req);
    if (!s) {
        return std::unexpected(s.error());
    }
    const auto ms = req.find("interval_ms");
    if (ms == req.end() || !ms->is_number_integer() || ms->get<std::int64_t>() < 0 ||
        ms->get<std::int64_t>() > 86'400'000) {
        return refuse(ErrorCode::bad_request, "'interval_ms' must be a whole number from 0 "
                                              "(stop) to 86400000");
    }
    Session& ses = **s;
    const auto wanted = std::chrono::milliseconds{ms->get<std::int64_t>()};
    if (wanted.count() == 0) {
        ses.stream_interval_ns = 0;
        return json{{"interval_ms", 0}};
    }
    const auto interval = std::max(Nanos{wanted}, d.engine.base_interval());
    ses.stream_connection = c.id;
    ses.stream_interval_ns = interval.count();
    ses.next_push_ns = now;
    ses.next_seq.clear();
    for (std::size_t i = 0; i < d.engine.channels().size(); ++i) {
        ses.next_seq.push_back(std::max<std::uint64_t>(view(d, ses.grant, i).newest(), 1));
    }
    return json{{"interval_ms", to_ms(interval)}};
}

} // namespace jp::daemon::ops
