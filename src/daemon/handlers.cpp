// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/handlers.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "daemon/ops.hpp"
#include "jp_version.hpp"
#include "sys/proc.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace jp::daemon {
namespace ops {

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
    // Labels and marker names reach logs, traces, tables and root's terminal: no line
    // breaks, escapes or other control characters in them (C0, DEL, C1 such as the one-byte
    // CSI, bidirectional overrides, line and paragraph separators).
    const auto& text = it->get_ref<const std::string&>();
    if (text_problem(text) != nullptr) {
        return refuse(ErrorCode::bad_request,
                      fmt::format("'{}' must not hold control characters", key));
    }
    return text;
}

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

namespace {

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

// Channel i's idle power as the daemon learned it (daemon/idle.hpp); null until it has, and
// for a floored caller where its periods are shorter than a floored window can be.
json idle_json(const DaemonState& d, Grant g, std::size_t i) {
    const auto& e = d.engine;
    const auto w = idle_shown(d, g, i) ? e.idle(i) : std::nullopt;
    if (!w) {
        return nullptr;
    }
    const auto& s = e.idle_settings();
    json out{
        {"watts", w->watts},           {"how", describe(s, *w)},
        {"percentile", s.percentile},  {"period_s", static_cast<double>(s.period.count()) * 1e-9},
        {"history_s", w->history_s},   {"periods", w->periods},
        {"basis", to_string(w->basis)}};
    if (w->least_busy) {
        out["least_busy"] = *w->least_busy;
    }
    return out;
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
                        {"profile_of", ch.profile_of},
                        {"resolution_ms", to_ms(resolution(d, c.grant, i))},
                        {"floored", floored},
                        {"up", d.engine.health(i).up},
                        {"idle", idle_json(d, c.grant, i)}});
    }
    return json{{"channels", std::move(list)}};
}

Reply op_open(DaemonState& d, Connection& c, const json& req, std::int64_t now) {
    auto label = text_field(req, "label", 256, "");
    if (!label) {
        return std::unexpected(label.error());
    }
    // The process that connected, still: its pid may have ended and named another since
    // (whose CPUs, and in the accounts whose work, would be taken as this client's).
    const auto started = c.peer.pid > 0 ? sys::process_start_time(c.peer.pid) : std::nullopt;
    if (c.peer.pid > 0 && (!started || started != c.peer_start_time)) {
        return refuse(ErrorCode::bad_request,
                      "the process that connected has ended: a session is its own process's");
    }
    if (auto refused = rationed(d.session_opens, c.peer.uid, now, "new sessions")) {
        return *refused;
    }
    auto s = d.sessions.open(c.id, c.peer, c.peer_start_time, c.grant, *label, now,
                             d.config.daemon.max_sessions_per_user);
    if (!s) {
        return refuse(ErrorCode::too_many_sessions, s.error());
    }
    JP_LOG_DEBUG("session {} opened by uid {} pid {}", (*s)->id, c.peer.uid, c.peer.pid);
    return json{{"session", (*s)->id}, {"channels", d.engine.channels().size()}};
}

Reply op_status(DaemonState& d, Connection& c, const json& /*req*/, std::int64_t now) {
    json j{{"daemon", fmt::format("jouleprofd {}", JP_VERSION)},
           {"protocol", k_protocol_version},
           {"uptime_s", static_cast<double>(now - d.started_ns) * 1e-9},
           {"channels", d.engine.channels().size()},
           {"missed_deadlines", d.engine.missed_deadlines()}};
    // How many clients and jobs there are tells when others start and stop work, and the
    // daemon's memory grows with others' sessions and markers: only for those who see full
    // resolution anyway.
    if (c.grant == Grant::full) {
        j["rss_bytes"] = sys::resident_bytes().value_or(0);
        j["cpu_s"] = process_cpu_seconds(); // it grows with others' requests
        j["clients"] = d.clients;
        j["sessions"] = d.sessions.size();
    }
    return j;
}

constexpr std::array<std::pair<std::string_view, Handler>, 12> k_ops{{
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
    {"ledger", op_ledger},
    {"status", op_status},
}};

std::string line_of(const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

json error_json(const json& id, const Refusal& r) {
    json j{{"id", id}, {"ok", false}, {"error", to_string(r.code)}, {"message", r.message}};
    if (r.code == ErrorCode::rate_limited || r.code == ErrorCode::too_soon) {
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
} // namespace ops

using ops::json;

std::string handle_line(DaemonState& d, Connection& c, std::string_view line, std::int64_t now_ns) {
    const auto req = json::parse(line, nullptr, false);
    if (!req.is_object()) {
        return ops::line_of(
            ops::error_json(nullptr, {ErrorCode::bad_request, "not a JSON object"}));
    }
    const auto id_it = req.find("id");
    const json id = id_it == req.end() ? json(nullptr) : *id_it;
    if (!id.is_null() && !id.is_number_integer()) {
        return ops::line_of(
            ops::error_json(nullptr, {ErrorCode::bad_request, "'id' must be an integer"}));
    }
    ops::Reply r;
    try {
        r = ops::dispatch(d, c, req, now_ns);
    } catch (const json::exception& e) { // a field of the wrong type deep inside
        r = ops::refuse(ErrorCode::bad_request, e.what());
    }
    if (!r) {
        return ops::line_of(ops::error_json(id, r.error()));
    }
    json& out = *r;
    out["id"] = id;
    out["ok"] = true;
    return ops::line_of(out);
}

std::string refusal_line(ErrorCode code, std::string_view message) {
    return ops::line_of(ops::error_json(nullptr, {code, std::string{message}}));
}

bool idle_shown(const DaemonState& d, Grant g, std::size_t i) {
    const auto& a = d.config.access;
    return g == Grant::full || !d.engine.restricted(i) ||
           d.engine.idle_settings().period >= a.floor + a.jitter;
}

const History& view_of(const Engine& engine, Grant g, std::size_t i) {
    return g != Grant::full && engine.restricted(i) ? engine.published(i) : engine.history(i);
}

} // namespace jp::daemon
