// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/handlers.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "jp_version.hpp"
#include "sys/proc.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace jp::daemon {
namespace {

constexpr std::int64_t k_skew_ns = 60'000'000'000; // a marker's time may stray by a minute

// What a marker costs the daemon's memory, for the per-user bound.
std::size_t marker_bytes(const std::string& kind, const std::string& name) {
    return sizeof(MarkerEntry) + kind.capacity() + name.capacity();
}

using nlohmann::json;

struct Refusal {
    ErrorCode code;
    std::string message;
    std::int64_t retry_after_ms = 0;
};
using Reply = std::expected<json, Refusal>;

std::unexpected<Refusal> refuse(ErrorCode code, std::string message, std::int64_t retry = 0) {
    return std::unexpected(Refusal{code, std::move(message), retry});
}

std::int64_t to_ms(Nanos d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

// A string field of at most max bytes; absent gives fallback (or a refusal when none).
std::expected<std::string, Refusal>
text_field(const json& req, const char* key, std::size_t max, std::optional<std::string> fallback) {
    const auto it = req.find(key);
    if (it == req.end()) {
        if (fallback) {
            return *fallback;
        }
        return refuse(ErrorCode::bad_request, fmt::format("'{}' is missing", key));
    }
    if (!it->is_string() || it->get_ref<const std::string&>().size() > max) {
        return refuse(ErrorCode::bad_request,
                      fmt::format("'{}' must be a string of at most {} bytes", key, max));
    }
    // Labels and marker names reach logs, traces and tables: no line breaks, escapes
    // or other control characters in them.
    const auto& text = it->get_ref<const std::string&>();
    if (std::ranges::any_of(text, [](char ch) {
            const auto u = static_cast<unsigned char>(ch);
            return u < 0x20 || u == 0x7f;
        })) {
        return refuse(ErrorCode::bad_request,
                      fmt::format("'{}' must not hold control characters", key));
    }
    return text;
}

// The session the request names, if this caller may use it.
std::expected<Session*, Refusal> session_of(DaemonState& d, const Connection& c, const json& req) {
    auto id = text_field(req, "session", 64, std::nullopt);
    if (!id) {
        return std::unexpected(id.error());
    }
    Session* s = d.sessions.find(*id);
    if (s == nullptr) {
        return refuse(ErrorCode::no_such_session, fmt::format("no open session '{}'", *id));
    }
    if (!may_use(*s, c.peer.uid)) {
        return refuse(ErrorCode::not_yours,
                      fmt::format("session '{}' belongs to another user", *id));
    }
    return s;
}

const History& view(const DaemonState& d, Grant g, std::size_t i) {
    return view_of(d.engine, g, i);
}

Nanos resolution(const DaemonState& d, Grant g, std::size_t i) {
    return g != Grant::full && d.engine.restricted(i) ? d.config.access.floor
                                                      : d.engine.interval(i);
}

Reply op_hello(DaemonState& d, Connection& c, const json& req, std::int64_t now) {
    const auto versions = req.find("versions");
    if (versions == req.end() || !versions->is_array()) {
        return refuse(ErrorCode::bad_request, "'versions' must list the protocol versions spoken");
    }
    if (std::ranges::find(*versions, json(k_protocol_version)) == versions->end()) {
        return refuse(
            ErrorCode::unsupported_version,
            fmt::format("this jouleprofd speaks protocol version {} only", k_protocol_version));
    }
    c.grant = grant_for(d.config.access, c.peer);
    if (c.grant == Grant::denied) {
        return refuse(ErrorCode::denied,
                      fmt::format("this node's jouleprofd serves uid {} nothing (access rules in "
                                  "{})",
                                  c.peer.uid, d.config.source.string()));
    }
    c.said_hello = true;
    const auto& a = d.config.access;
    const bool limited = c.grant != Grant::full && a.edge_reads_burst > 0;
    return json{{"version", k_protocol_version},
                {"daemon", fmt::format("jouleprofd {}", JP_VERSION)},
                {"uid", c.peer.uid},
                {"access", to_string(c.grant)},
                {"interval_ms", to_ms(d.engine.base_interval())},
                {"floor_ms", c.grant == Grant::full ? 0 : to_ms(a.floor)},
                {"jitter_ms", c.grant == Grant::full ? 0 : to_ms(a.jitter)},
                {"edge_reads",
                 {{"burst", limited ? a.edge_reads_burst : 0},
                  {"per_minute", limited ? a.edge_reads_per_minute : 0.0},
                  {"available", limited ? d.budget.available(c.peer.uid, now, a) : -1}}},
                {"mono_ns", mono_ns()}};
}

Reply op_channels(DaemonState& d, Connection& c, const json& /*req*/, std::int64_t /*now*/) {
    json list = json::array();
    const auto& chans = d.engine.channels();
    for (std::size_t i = 0; i < chans.size(); ++i) {
        const auto& ch = chans[i];
        const bool floored = c.grant != Grant::full && d.engine.restricted(i);
        list.push_back({{"index", i},
                        {"name", ch.name},
                        {"domain", to_string(ch.domain)},
                        {"quantity", to_string(ch.quantity)},
                        {"unit", ch.quantity == Quantity::energy ? "J" : unit_of(ch.quantity)},
                        {"provenance", to_string(ch.provenance)},
                        {"backend", ch.backend},
                        {"source", ch.source},
                        {"device", ch.device},
                        {"limit_watts", ch.limit_watts ? json(*ch.limit_watts) : json(nullptr)},
                        {"max_watts", ch.max_watts ? json(*ch.max_watts) : json(nullptr)},
                        {"update_ns", ch.update_ns ? json(*ch.update_ns) : json(nullptr)},
                        {"averaging_ns", ch.averaging_ns ? json(*ch.averaging_ns) : json(nullptr)},
                        {"counted", ch.counted},
                        {"parent", ch.parent},
                        {"resolution_ms", to_ms(resolution(d, c.grant, i))},
                        {"floored", floored},
                        {"up", d.engine.health(i).up}});
    }
    return json{{"channels", std::move(list)}};
}

Reply op_open(DaemonState& d, Connection& c, const json& req, std::int64_t now) {
    auto label = text_field(req, "label", 256, "");
    if (!label) {
        return std::unexpected(label.error());
    }
    auto s =
        d.sessions.open(c.id, c.peer, c.grant, *label, now, d.config.daemon.max_sessions_per_user);
    if (!s) {
        return refuse(ErrorCode::too_many_sessions, s.error());
    }
    JP_LOG_DEBUG("session {} opened by uid {} pid {}", (*s)->id, c.peer.uid, c.peer.pid);
    return json{{"session", (*s)->id}, {"channels", d.engine.channels().size()}};
}

json values_json(const std::vector<std::pair<std::size_t, Reading>>& values) {
    json out = json::array();
    for (const auto& [i, r] : values) {
        out.push_back({i, r.t_ns, r.value});
    }
    return out;
}

Reply op_read(DaemonState& d, Connection& c, const json& req, std::int64_t now) {
    auto s = session_of(d, c, req);
    if (!s) {
        return std::unexpected(s.error());
    }
    const auto& a = d.config.access;
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
    // Slow sources are not read on demand: their latest reading, as this caller may see it.
    for (std::size_t i = 0; i < d.engine.channels().size(); ++i) {
        const bool read = std::ranges::any_of(values, [&](const auto& v) { return v.first == i; });
        if (const auto& h = view(d, c.grant, i); !read && !h.empty()) {
            values.emplace_back(i, h.latest());
        }
    }
    return json{{"t_ns", mono_ns()}, {"values", values_json(values)}};
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
    return json{{"values", values_json(values)}};
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

Reply op_status(DaemonState& d, Connection& c, const json& /*req*/, std::int64_t now) {
    json j{{"daemon", fmt::format("jouleprofd {}", JP_VERSION)},
           {"protocol", k_protocol_version},
           {"uptime_s", static_cast<double>(now - d.started_ns) * 1e-9},
           {"channels", d.engine.channels().size()},
           {"missed_deadlines", d.engine.missed_deadlines()},
           {"cpu_s", process_cpu_seconds()},
           {"rss_bytes", sys::resident_bytes().value_or(0)}};
    // How many clients and jobs there are tells when others start and stop work:
    // only for those who see full resolution anyway.
    if (c.grant == Grant::full) {
        j["clients"] = d.clients;
        j["sessions"] = d.sessions.size();
    }
    return j;
}

using Handler = Reply (*)(DaemonState&, Connection&, const json&, std::int64_t);

constexpr std::array<std::pair<std::string_view, Handler>, 11> k_ops{{
    {"hello", op_hello},
    {"channels", op_channels},
    {"open", op_open},
    {"read", op_read},
    {"latest", op_latest},
    {"stream", op_stream},
    {"mark", op_mark},
    {"session", op_session},
    {"sessions", op_sessions},
    {"close", op_close},
    {"status", op_status},
}};

std::string line_of(const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

json error_json(const json& id, const Refusal& r) {
    json j{{"id", id}, {"ok", false}, {"error", to_string(r.code)}, {"message", r.message}};
    if (r.code == ErrorCode::rate_limited) {
        j["retry_after_ms"] = r.retry_after_ms;
    }
    return j;
}

Reply dispatch(DaemonState& d, Connection& c, const json& req, std::int64_t now) {
    const auto op = req.find("op");
    if (op == req.end() || !op->is_string()) {
        return refuse(ErrorCode::bad_request, "'op' must name an operation");
    }
    const auto& name = op->get_ref<const std::string&>();
    const auto* const it = std::ranges::find(k_ops, std::string_view{name},
                                             &std::pair<std::string_view, Handler>::first);
    if (it == k_ops.end()) {
        return refuse(ErrorCode::unknown_op, fmt::format("no operation '{}'", name.substr(0, 64)));
    }
    if (!c.said_hello && name != "hello") {
        return refuse(ErrorCode::hello_first, R"(say hello first: {"op":"hello","versions":[1]})");
    }
    return it->second(d, c, req, now);
}

} // namespace

std::string handle_line(DaemonState& d, Connection& c, std::string_view line, std::int64_t now_ns) {
    const auto req = json::parse(line, nullptr, false);
    if (!req.is_object()) {
        return line_of(error_json(nullptr, {ErrorCode::bad_request, "not a JSON object"}));
    }
    const auto id_it = req.find("id");
    const json id = id_it == req.end() ? json(nullptr) : *id_it;
    if (!id.is_null() && !id.is_number_integer()) {
        return line_of(error_json(nullptr, {ErrorCode::bad_request, "'id' must be an integer"}));
    }
    Reply r;
    try {
        r = dispatch(d, c, req, now_ns);
    } catch (const json::exception& e) { // a field of the wrong type deep inside
        r = refuse(ErrorCode::bad_request, e.what());
    }
    if (!r) {
        return line_of(error_json(id, r.error()));
    }
    json& out = *r;
    out["id"] = id;
    out["ok"] = true;
    return line_of(out);
}

std::string refusal_line(ErrorCode code, std::string_view message) {
    return line_of(error_json(nullptr, {code, std::string{message}}));
}

const History& view_of(const Engine& engine, Grant g, std::size_t i) {
    return g != Grant::full && engine.restricted(i) ? engine.published(i) : engine.history(i);
}

} // namespace jp::daemon
