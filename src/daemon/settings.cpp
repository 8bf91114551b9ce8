// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/settings.hpp"

#include "config/config_toml.hpp"
#include "config/toml_scope.hpp"
#include "sys/file.hpp"
#include "sys/trusted_file.hpp"

#include <array>
#include <fmt/format.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

namespace jp::daemon {
namespace {

constexpr std::array<std::string_view, 3> k_own_tables{"daemon", "access", "prometheus"};

Result<void> parse_daemon(const TomlScope& s, DaemonSettings& out) {
    if (auto r = s.only({"socket", "interval", "history", "max_clients", "max_clients_per_user",
                         "max_sessions_per_user", "client_timeout", "idle_period", "idle_window",
                         "idle_min_history", "idle_percentile", "idle_quiet_busy", "state_dir"});
        !r) {
        return r;
    }
    auto socket = s.string("socket");
    if (!socket) {
        return std::unexpected(socket.error());
    }
    if (*socket) {
        if (socket->value().empty() || socket->value().front() != '/') {
            return s.error(*s.table.get("socket"), "socket", "must be an absolute path");
        }
        out.socket = **socket;
    }
    auto state = s.string("state_dir");
    if (!state) {
        return std::unexpected(state.error());
    }
    if (*state) {
        if (!state->value().empty() && state->value().front() != '/') {
            return s.error(*s.table.get("state_dir"), "state_dir",
                           "must be an absolute path, or \"\" to keep nothing");
        }
        out.state_dir = **state;
    }
    for (auto r :
         {s.duration("interval", std::chrono::milliseconds{1}, out.interval),
          s.duration("history", std::chrono::seconds{10}, out.history),
          s.duration("client_timeout", std::chrono::milliseconds{100}, out.client_timeout),
          s.integer("max_clients", 1, 1'000'000, out.max_clients),
          s.integer("max_clients_per_user", 1, 1'000'000, out.max_clients_per_user),
          s.integer("max_sessions_per_user", 1, 1'000'000, out.max_sessions_per_user),
          s.duration("idle_period", std::chrono::milliseconds{100}, out.idle.period),
          s.duration("idle_window", std::chrono::seconds{1}, out.idle.window),
          s.duration("idle_min_history", std::chrono::milliseconds{100}, out.idle.min_history)}) {
        if (!r) {
            return r;
        }
    }
    int percentile = static_cast<int>(out.idle.percentile);
    if (auto r = s.integer("idle_percentile", 0, 50, percentile); !r) {
        return r;
    }
    out.idle.percentile = percentile;
    if (auto r = s.integer("idle_quiet_busy", 0, 100, out.idle.quiet_busy_percent); !r) {
        return r;
    }
    // At most 100,000 means per channel (800 KB): a window of days at 100 ms would not fit.
    constexpr std::int64_t k_max_periods = 100'000;
    if (out.idle.window < out.idle.period || out.idle.min_history > out.idle.window ||
        out.idle.min_history < out.idle.period ||
        out.idle.window.count() / out.idle.period.count() > k_max_periods) {
        // Defaults agree: one of the three was given (the first given is named).
        for (const char* key : {"idle_window", "idle_min_history", "idle_period"}) {
            if (const auto* node = s.table.get(key)) {
                return s.error(*node, key,
                               "idle_window must hold idle_period (at most 100000 of them) and "
                               "idle_min_history, and idle_min_history at least one idle_period");
            }
        }
    }
    return {};
}

Result<void> parse_others(const TomlScope& s, AccessRules& out) {
    auto others = s.string("others");
    if (!others) {
        return std::unexpected(others.error());
    }
    if (*others) {
        if (**others != "floor" && **others != "deny") {
            return s.error(*s.table.get("others"), "others", R"(must be "floor" or "deny")");
        }
        out.others_allowed = **others == "floor";
    }
    return {};
}

Result<void> parse_access(const TomlScope& s, AccessRules& out) {
    if (auto r = s.only({"full_resolution_groups", "others", "floor", "jitter", "edge_reads_burst",
                         "edge_reads_per_minute", "unrestricted_backends"});
        !r) {
        return r;
    }
    auto groups = s.strings("full_resolution_groups");
    auto unrestricted = s.strings("unrestricted_backends");
    auto per_minute = s.number("edge_reads_per_minute", false);
    if (!groups || !unrestricted || !per_minute) {
        return std::unexpected(!groups         ? groups.error()
                               : !unrestricted ? unrestricted.error()
                                               : per_minute.error());
    }
    out.full_resolution_groups = groups->value_or(out.full_resolution_groups);
    out.unrestricted_backends = unrestricted->value_or(out.unrestricted_backends);
    out.edge_reads_per_minute = per_minute->value_or(out.edge_reads_per_minute);
    for (auto r :
         {parse_others(s, out), s.duration("floor", std::chrono::milliseconds{1}, out.floor),
          s.duration("jitter", Nanos{0}, out.jitter),
          s.integer("edge_reads_burst", 0, 1'000'000, out.edge_reads_burst)}) {
        if (!r) {
            return r;
        }
    }
    return {};
}

Result<void> parse_prometheus(const TomlScope& s, DaemonSettings& out) {
    if (auto r = s.only({"listen", "max_connections", "max_connections_per_peer", "per_job",
                         "per_job_max", "per_job_keep"});
        !r) {
        return r;
    }
    auto listen = s.string("listen");
    if (!listen) {
        return std::unexpected(listen.error());
    }
    out.prometheus_listen = *listen;
    auto per_job = s.boolean("per_job");
    if (!per_job) {
        return std::unexpected(per_job.error());
    }
    out.prometheus_per_job = per_job->value_or(false);
    if (out.prometheus_per_job && !out.prometheus_listen) {
        return s.error(*s.table.get("per_job"), "per_job",
                       "needs listen: /metrics is where it goes");
    }
    for (auto r : {s.integer("max_connections", 1, 1024, out.prometheus_max_connections),
                   s.integer("max_connections_per_peer", 1, 1024, out.prometheus_max_per_peer),
                   s.integer("per_job_max", 1, 100'000, out.prometheus_per_job_max),
                   s.duration("per_job_keep", Nanos{0}, out.prometheus_per_job_keep)}) {
        if (!r) {
            return r;
        }
    }
    return {};
}

template <class Fn> Result<void> section(const TomlScope& root, std::string_view key, Fn parse) {
    auto t = root.table_at(key);
    if (!t) {
        return std::unexpected(t.error());
    }
    return *t ? parse(**t) : Result<void>{};
}

} // namespace

Result<DaemonConfig> parse_daemon_config(std::string_view text, std::string_view origin) {
    auto root = parse_toml(text, origin);
    if (!root) {
        return std::unexpected(root.error());
    }
    auto sensors = config_from_table(*root, origin, k_own_tables);
    if (!sensors) {
        return std::unexpected(sensors.error());
    }
    DaemonConfig out;
    out.sensors = std::move(*sensors);
    const TomlScope top{origin, *root, "top level"};
    for (auto r :
         {section(top, "daemon", [&](const TomlScope& s) { return parse_daemon(s, out.daemon); }),
          section(top, "access", [&](const TomlScope& s) { return parse_access(s, out.access); }),
          section(top, "prometheus",
                  [&](const TomlScope& s) { return parse_prometheus(s, out.daemon); })}) {
        if (!r) {
            return std::unexpected(r.error());
        }
    }
    return out;
}

Result<void> resolve_groups(AccessRules& rules, std::string_view origin) {
    rules.full_resolution_gids.clear();
    for (const auto& name : rules.full_resolution_groups) {
        const group* g = ::getgrnam(name.c_str());
        if (g == nullptr) {
            return fail(ErrorKind::config,
                        fmt::format("{}: [access] full_resolution_groups", origin),
                        fmt::format("no group named '{}' on this node", name));
        }
        rules.full_resolution_gids.push_back(g->gr_gid);
    }
    return {};
}

Result<DaemonConfig> load_daemon_config(const std::filesystem::path& path) {
    // Nobody but root (or the daemon's own user) may change what the daemon reads: the
    // file and every directory above it, checked as the file is opened.
    auto text = sys::read_trusted(path, "config file");
    if (!text) {
        return std::unexpected(text.error());
    }
    auto config = parse_daemon_config(*text, path.string());
    if (!config) {
        return config;
    }
    config->source = path;
    config->text = std::move(*text);
    config->sensors.source = path;
    if (auto r = resolve_groups(config->access, path.string()); !r) {
        return std::unexpected(r.error());
    }
    return config;
}

} // namespace jp::daemon
