// SPDX-License-Identifier: BSD-3-Clause
// The session operations: markers (bounded per session and per user in bytes),
// a session's details and markers in pages, the caller's sessions, close, and the ledger's
// view of who else held the session's CPUs (daemon/ledger.hpp).
#include "daemon/ops.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace jp::daemon::ops {
namespace {

constexpr std::int64_t k_skew_ns = 60'000'000'000; // a marker's time may stray by a minute
constexpr std::int64_t k_max_time_ns = std::int64_t{1} << 61;

// What a marker costs the daemon's memory, for the per-user bound.
std::size_t marker_bytes(const std::string& kind, const std::string& name) {
    return sizeof(MarkerEntry) + kind.capacity() + name.capacity();
}

// A session's markers come in pages of at most this many ('markers_from' picks the
// first), so no reply grows past the connection's bounds.
constexpr std::size_t k_markers_per_reply = 2000;

json session_json(const Session& s, bool with_markers, std::size_t from = 0) {
    json j{{"session", s.id},
           {"uid", s.owner.uid},
           {"pid", s.owner.pid},
           {"label", s.label},
           {"access", to_string(s.grant)},
           {"opened_ns", s.opened_ns},
           {"exact_reads", s.exact_reads},
           {"stream_interval_ms", s.stream_interval_ns / 1'000'000},
           {"markers_count", s.markers.size()}};
    if (with_markers) {
        json m = json::array();
        const auto end = std::min(s.markers.size(), from + k_markers_per_reply);
        for (auto i = std::min(from, end); i < end; ++i) {
            const auto& e = s.markers[i];
            m.push_back({e.t_ns, e.kind, e.name});
        }
        j["markers"] = std::move(m);
        j["markers_from"] = std::min(from, end);
        if (end < s.markers.size()) {
            j["markers_next"] = end; // ask again with "markers_from": this
        }
    }
    return j;
}

// A ledger request's `groups` (absent: the view per CPU): at most Ledger::k_max_groups
// arrays of CPU numbers 0..65535, 65,536 numbers in all.
std::expected<std::optional<std::vector<std::vector<int>>>, Refusal>
ledger_groups(const json& req) {
    const auto it = req.find("groups");
    if (it == req.end()) {
        return std::nullopt;
    }
    const auto bad = [] {
        return Refusal{ErrorCode::bad_request,
                       fmt::format("'groups' must be at most {} arrays of CPU numbers "
                                   "(0-65535), each CPU in one at most, 65536 in all",
                                   Ledger::k_max_groups)};
    };
    if (!it->is_array() || it->size() > Ledger::k_max_groups) {
        return std::unexpected(bad());
    }
    std::vector<std::vector<int>> out;
    std::size_t total = 0;
    for (const auto& g : *it) {
        total += g.is_array() ? g.size() : 0;
        if (!g.is_array() || total > 65536) {
            return std::unexpected(bad());
        }
        auto& cpus = out.emplace_back();
        for (const auto& c : g) {
            if (!c.is_number_integer() || c.get<std::int64_t>() < 0 ||
                c.get<std::int64_t>() > 65535) {
                return std::unexpected(bad());
            }
            cpus.push_back(c.get<int>());
        }
    }
    std::vector<int> all; // no CPU twice: its share would count twice
    for (const auto& g : out) {
        all.insert(all.end(), g.begin(), g.end());
    }
    std::ranges::sort(all);
    if (std::ranges::adjacent_find(all) != all.end()) {
        return std::unexpected(bad());
    }
    return out;
}

} // namespace

Reply op_mark(DaemonState& d, Connection& c, const json& req, std::int64_t now) {
    auto s = session_of(d, c, req);
    auto kind = text_field(req, "kind", 8, "point");
    auto name = text_field(req, "name", 256, std::nullopt);
    if (!s || !kind || !name) {
        return std::unexpected(!s ? s.error() : !kind ? kind.error() : name.error());
    }
    if (*kind != "begin" && *kind != "end" && *kind != "point") {
        return refuse(ErrorCode::bad_request, "'kind' must be begin, end or point");
    }
    if (name->empty()) {
        return refuse(ErrorCode::bad_request, "'name' must not be empty");
    }
    auto t = now;
    if (const auto it = req.find("t_ns"); it != req.end()) {
        // A marker is stamped during its session, on this clock: from the session's
        // opening (less a minute of clock reading skew) to a minute after now.
        if (!it->is_number_integer() || it->get<std::int64_t>() < (*s)->opened_ns - k_skew_ns ||
            it->get<std::int64_t>() > now + k_skew_ns) {
            return refuse(ErrorCode::bad_request,
                          "'t_ns' must be a CLOCK_MONOTONIC time in ns within the session");
        }
        t = it->get<std::int64_t>();
    }
    auto& markers = (*s)->markers;
    if (markers.size() >= SessionTable::k_max_markers) {
        return refuse(ErrorCode::bad_request, fmt::format("a session holds at most {} markers",
                                                          SessionTable::k_max_markers));
    }
    const auto bytes = marker_bytes(*kind, *name);
    if (c.peer.uid != 0 && d.sessions.marker_bytes_of(c.peer.uid) + bytes >
                               SessionTable::k_max_marker_bytes_per_user) {
        return refuse(ErrorCode::bad_request,
                      fmt::format("uid {} holds {} MiB of markers in its sessions, the most one "
                                  "user may",
                                  c.peer.uid, SessionTable::k_max_marker_bytes_per_user >> 20));
    }
    markers.push_back({t, std::move(*kind), std::move(*name)});
    (*s)->marker_bytes += bytes;
    return json::object();
}

json ledger_view_json(const LedgerView& v) {
    json out{{"other_jobs", v.other_jobs},
             {"most_at_once", v.most_at_once},
             {"complete_from_ns", v.complete_from_ns},
             {"counts_complete_from_ns", v.counts_complete_from_ns}};
    json segments = json::array();
    if (v.grouped) { // per group, the sum of 1 / holders over the session's CPUs in it
        for (const auto& [t, sums] : v.sums) {
            segments.push_back({t, sums});
        }
        out["groups"] = v.groups;
        if (v.more_from_ns) { // a page: ask again from here for the rest of the span
            out["more_from_ns"] = *v.more_from_ns;
        }
    } else {
        // Each segment's counts are run-length coded ([[count, how many CPUs], ...] in the
        // order of `cpus`): one pair where all of them are held alike.
        for (const auto& [t, runs] : v.segments) {
            json coded = json::array();
            for (const auto& [holders, n] : runs) {
                coded.push_back({holders, n});
            }
            segments.push_back({t, std::move(coded)});
        }
        out["cpus"] = v.cpus;
    }
    out["segments"] = std::move(segments);
    return out;
}

Reply op_ledger(DaemonState& d, Connection& c, const json& req, std::int64_t now) {
    auto s = session_of(d, c, req);
    if (!s) {
        return std::unexpected(s.error());
    }
    const auto time = [&](const char* key, std::int64_t fallback) -> std::optional<std::int64_t> {
        const auto it = req.find(key);
        if (it == req.end()) {
            return fallback;
        }
        if (!it->is_number_integer() || it->get<std::int64_t>() < -k_max_time_ns ||
            it->get<std::int64_t>() > k_max_time_ns) {
            return std::nullopt;
        }
        return it->get<std::int64_t>();
    };
    const auto from = time("from_ns", (*s)->opened_ns);
    const auto to = time("to_ns", now);
    if (!from || !to) {
        return refuse(ErrorCode::bad_request,
                      "'from_ns' and 'to_ns' must be CLOCK_MONOTONIC times in ns");
    }
    // Rationed before the groups are read: a request of 65,536 CPU numbers costs its walk
    // whether or not it is well formed, so a malformed one counts as a view too.
    if (auto refused = rationed(d.ledger_calls, c.peer.uid, now, "ledger views")) {
        return *refused;
    }
    const auto groups = ledger_groups(req);
    if (!groups) {
        return std::unexpected(groups.error());
    }
    // A floored caller sees no other job's beginning or end finer than the floor.
    const auto quantum = c.grant == Grant::full ? std::int64_t{1} : d.config.access.floor.count();
    const auto v = d.sessions.ledger().view((*s)->id, *from, *to, now, quantum, *groups);
    if (!v) {
        return refuse(ErrorCode::bad_request,
                      "the span holds too many other jobs' beginnings and ends: ask for a "
                      "shorter one");
    }
    return ledger_view_json(*v);
}

Reply op_session(DaemonState& d, Connection& c, const json& req, std::int64_t /*now*/) {
    auto s = session_of(d, c, req);
    if (!s) {
        return std::unexpected(s.error());
    }
    std::size_t from = 0;
    if (const auto it = req.find("markers_from"); it != req.end()) {
        if (!it->is_number_unsigned()) {
            return refuse(ErrorCode::bad_request, "'markers_from' must be a marker's index");
        }
        from = it->get<std::size_t>();
    }
    return session_json(**s, true, from);
}

Reply op_sessions(DaemonState& d, Connection& c, const json& /*req*/, std::int64_t /*now*/) {
    json list = json::array();
    d.sessions.for_each([&](Session& s) {
        if (may_use(s, c.peer.uid)) {
            list.push_back(session_json(s, false));
        }
    });
    return json{{"sessions", std::move(list)}};
}

Reply op_close(DaemonState& d, Connection& c, const json& req, std::int64_t /*now*/) {
    auto s = session_of(d, c, req);
    if (!s) {
        return std::unexpected(s.error());
    }
    d.sessions.close((*s)->id);
    return json::object();
}

} // namespace jp::daemon::ops
