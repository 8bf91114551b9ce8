// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/metrics.hpp"

#include "core/clock.hpp"
#include "jp_version.hpp"
#include "sys/proc.hpp"

#include <fmt/format.h>

namespace jp::daemon {
namespace {

std::string escaped(std::string_view v) {
    std::string out;
    for (char c : v) {
        if (c == '\\' || c == '"') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

std::string labels(const Channel& c) {
    return fmt::format("channel=\"{}\",domain=\"{}\",device=\"{}\",source=\"{}\",provenance=\"{}\","
                       "counted=\"{}\"",
                       escaped(c.name), to_string(c.domain), escaped(c.device), escaped(c.backend),
                       to_string(c.provenance), c.counted ? "true" : "false");
}

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

// Watts over the last published window: from two counter readings, or the window's mean.
std::optional<double> window_watts(const Channel& c, const History& p) {
    if (p.empty()) {
        return std::nullopt;
    }
    if (c.quantity != Quantity::energy) {
        return p.latest().value;
    }
    if (p.newest() < 2 || p.newest() - 1 < p.oldest()) {
        return std::nullopt;
    }
    const auto& a = p.at(p.newest() - 1);
    const auto& b = p.latest();
    return b.t_ns > a.t_ns
               ? std::optional{(b.value - a.value) / (static_cast<double>(b.t_ns - a.t_ns) * 1e-9)}
               : std::nullopt;
}

// One metric family; left out whole when it has no samples.
void family(std::string& out,
            std::string_view name,
            std::string_view type,
            std::string_view help,
            const std::string& samples) {
    if (!samples.empty()) {
        header(out, name, type, help);
        out += samples;
    }
}

void channel_metrics(std::string& out, const DaemonState& d) {
    const auto& chans = d.engine.channels();
    std::string energy;
    std::string power;
    std::string util;
    for (std::size_t i = 0; i < chans.size(); ++i) {
        const auto& c = chans[i];
        const auto& p = d.engine.published(i);
        if (c.quantity == Quantity::energy && !p.empty()) {
            energy += fmt::format("jouleprof_energy_joules_total{{{}}} {}\n", labels(c),
                                  p.latest().value);
        }
        if (c.quantity == Quantity::utilization && !p.empty()) {
            util += fmt::format("jouleprof_utilization_ratio{{{}}} {}\n", labels(c),
                                p.latest().value / 100);
        } else if (auto w = window_watts(c, p)) {
            power += fmt::format("jouleprof_power_watts{{{}}} {}\n", labels(c), *w);
        }
    }
    family(out, "jouleprof_energy_joules_total", "counter",
           "Energy a channel measured since jouleprofd started, in joules.", energy);
    family(out, "jouleprof_power_watts", "gauge",
           "Average power of a channel over the last published window, in watts.", power);
    family(out, "jouleprof_utilization_ratio", "gauge",
           "Mean utilisation of a device over the last published window, 0 to 1.", util);
    std::string idle;
    std::string history;
    for (std::size_t i = 0; i < chans.size(); ++i) {
        // /metrics is anyone's who reaches it: shown as to a floored caller.
        const auto w = idle_shown(d, Grant::floor, i) ? d.engine.idle(i) : std::nullopt;
        if (w) {
            idle += fmt::format("jouleprof_idle_watts{{{}}} {}\n", labels(chans[i]), w->watts);
            history += fmt::format("jouleprof_idle_history_seconds{{{}}} {}\n", labels(chans[i]),
                                   w->history_s);
        }
    }
    const auto& s = d.engine.idle_settings();
    family(out, "jouleprof_idle_watts", "gauge",
           fmt::format("Idle power jouleprofd learned for a channel: {}.", describe(s)), idle);
    family(out, "jouleprof_idle_history_seconds", "gauge",
           "The history jouleprof_idle_watts was learned from, in seconds.", history);
}

// The node meter when there is one, else the sum of the counted parts (a lower bound).
void node_metric(std::string& out, const DaemonState& d) {
    const auto& chans = d.engine.channels();
    double parts = 0;
    bool any = false;
    for (std::size_t i = 0; i < chans.size(); ++i) {
        const auto& c = chans[i];
        const auto& p = d.engine.published(i);
        if (c.quantity != Quantity::energy || !c.counted || p.empty()) {
            continue;
        }
        if (c.domain == Domain::node) {
            header(out, "jouleprof_node_energy_joules_total", "counter",
                   "Energy of the whole node since jouleprofd started, in joules.");
            out += fmt::format("jouleprof_node_energy_joules_total{{basis=\"node meter\","
                               "provenance=\"{}\"}} {}\n",
                               to_string(c.provenance), p.latest().value);
            return;
        }
        parts += p.latest().value;
        any = true;
    }
    if (any) {
        header(out, "jouleprof_node_energy_joules_total", "counter",
               "Energy of the whole node since jouleprofd started, in joules.");
        out += fmt::format("jouleprof_node_energy_joules_total{{basis=\"sum of parts\","
                           "provenance=\"derived\"}} {}\n",
                           parts);
    }
}

void health_metrics(std::string& out, const DaemonState& d) {
    const auto& chans = d.engine.channels();
    header(out, "jouleprof_sensor_up", "gauge",
           "1 while a channel's sensor answers, 0 once it is gone or failing.");
    for (std::size_t i = 0; i < chans.size(); ++i) {
        out += fmt::format("jouleprof_sensor_up{{{}}} {}\n", labels(chans[i]),
                           d.engine.health(i).up ? 1 : 0);
    }
    header(out, "jouleprof_sensor_errors_total", "counter",
           "Problems a channel's readings had: gone, read errors, impossible jumps, stuck.");
    for (std::size_t i = 0; i < chans.size(); ++i) {
        out += fmt::format("jouleprof_sensor_errors_total{{{}}} {}\n", labels(chans[i]),
                           d.engine.health(i).errors);
    }
}

void daemon_metrics(std::string& out, const DaemonState& d, std::int64_t now_ns) {
    header(out, "jouleprof_daemon_cpu_seconds_total", "counter", "CPU time jouleprofd has used.");
    out += fmt::format("jouleprof_daemon_cpu_seconds_total {}\n", process_cpu_seconds());
    header(out, "jouleprof_daemon_resident_memory_bytes", "gauge",
           "Resident memory of jouleprofd in bytes.");
    out += fmt::format("jouleprof_daemon_resident_memory_bytes {}\n",
                       sys::resident_bytes().value_or(0));
    header(out, "jouleprof_daemon_uptime_seconds", "gauge", "Seconds since jouleprofd started.");
    out += fmt::format("jouleprof_daemon_uptime_seconds {}\n",
                       static_cast<double>(now_ns - d.started_ns) * 1e-9);
    // No client or session counts: /metrics is anonymous, and how many jobs run tells
    // when others start and stop work (docs/security.md). Root sees them in "status".
    header(out, "jouleprof_daemon_missed_deadlines_total", "counter",
           "Sampling ticks jouleprofd could not keep.");
    out += fmt::format("jouleprof_daemon_missed_deadlines_total {}\n", d.engine.missed_deadlines());
    header(out, "jouleprof_build_info", "gauge", "The running jouleprofd's version.");
    out += fmt::format("jouleprof_build_info{{version=\"{}\"}} 1\n", JP_VERSION);
}

} // namespace

std::string metrics_text(const DaemonState& d, std::int64_t now_ns) {
    std::string out;
    channel_metrics(out, d);
    node_metric(out, d);
    health_metrics(out, d);
    daemon_metrics(out, d, now_ns);
    return out;
}

} // namespace jp::daemon
