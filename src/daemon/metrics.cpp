// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/metrics.hpp"

#include "core/clock.hpp"
#include "core/text.hpp"
#include "jp_version.hpp"
#include "sys/proc.hpp"

#include <array>
#include <fmt/format.h>

namespace jp::daemon {
namespace {

// A label value: valid UTF-8 (what is not, replaced; a cgroup's name may be any bytes), with
// the exposition format's escapes.
std::string escaped(std::string_view raw) {
    const std::string v = valid_utf8(raw);
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

std::string cpu_list(const std::vector<int>& cpus) {
    std::string out;
    for (std::size_t i = 0; i < cpus.size();) {
        std::size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) {
            ++j;
        }
        out += fmt::format("{}{}", out.empty() ? "" : ",", cpus[i]);
        if (j > i) {
            out += fmt::format("-{}", cpus[j]);
        }
        i = j + 1;
    }
    return out;
}

// Each channel's energy split among the node's jobs, and each job's share with its labels
// on a separate _info series; only where [prometheus] per_job asks for it (docs/daemon.md).
void account_metrics(std::string& out, const DaemonState& d) {
    if (!d.accounts) {
        return;
    }
    const auto& a = *d.accounts;
    const auto& chans = a.channels();
    const auto channel = [&](std::size_t i) {
        return fmt::format(R"(channel="{}",domain="{}",counted="{}")", escaped(chans[i].name),
                           to_string(chans[i].domain), chans[i].counted ? "true" : "false");
    };
    std::string split;
    for (std::size_t i = 0; i < chans.size(); ++i) {
        const auto& t = a.totals()[i];
        if (t.energy_j <= 0) {
            continue;
        }
        for (const auto& [part, j] : {std::pair{"jobs_idle", t.jobs_idle_j},
                                      {"jobs_dynamic", t.jobs_dynamic_j},
                                      {"unallocated", t.unallocated_j},
                                      {"other", t.other_j}}) {
            split += fmt::format("jouleprof_split_energy_joules_total{{{},part=\"{}\"}} {}\n",
                                 channel(i), part, j);
        }
    }
    family(out, "jouleprof_split_energy_joules_total", "counter",
           "A channel's energy since accounting began, split: the jobs' idle and dynamic "
           "parts, idle power nobody was given (unallocated), others' use (other).",
           split);
    std::string energy;
    std::string info;
    for (const auto* job : a.jobs()) {
        const auto id = escaped(job->key);
        info += fmt::format(R"(jouleprof_job_info{{job="{}",uid="{}",user="{}",slurm_job="{}",)"
                            R"(cpus="{}",method="{}",state="{}"}} 1)"
                            "\n",
                            id, job->uid, escaped(job->user), escaped(job->slurm_job),
                            cpu_list(job->cpus), escaped(job->method),
                            job->ended_ns == 0 ? "running" : "ended");
        for (std::size_t i = 0; i < chans.size() && i < job->energy.size(); ++i) {
            if (a.totals()[i].energy_j <= 0) {
                continue;
            }
            for (const auto& [part, j] : {std::pair{"idle", job->energy[i].idle_j},
                                          {"dynamic", job->energy[i].dynamic_j}}) {
                energy += fmt::format(
                    "jouleprof_job_energy_joules_total{{job=\"{}\",{},part=\"{}\"}} {}\n", id,
                    channel(i), part, j);
            }
        }
    }
    family(out, "jouleprof_job_energy_joules_total", "counter",
           "A job's share of a channel's energy since jouleprofd first saw it: idle power by "
           "what it was given, dynamic by what it used.",
           energy);
    family(out, "jouleprof_job_info", "gauge",
           "A job jouleprofd accounts for (running, or ended within per_job_keep), its labels.",
           info);
    header(out, "jouleprof_jobs", "gauge", "Jobs with a session open on jouleprofd.");
    out += fmt::format("jouleprof_jobs {}\n", a.open_jobs());
    header(out, "jouleprof_split_total", "counter", "Intervals of a channel split among jobs.");
    out += fmt::format("jouleprof_split_total {}\n", a.splits());
    header(out, "jouleprof_split_conservation_failures_total", "counter",
           "Splits whose parts did not add up to the channel's energy within 1 mJ.");
    out +=
        fmt::format("jouleprof_split_conservation_failures_total {}\n", a.conservation_failures());
    header(out, "jouleprof_split_scaled_total", "counter",
           "Splits whose jobs' shares added up to more than the whole and were scaled to it.");
    out += fmt::format("jouleprof_split_scaled_total{{share=\"given\"}} {}\n", a.given_scaled());
    out += fmt::format("jouleprof_split_scaled_total{{share=\"used\"}} {}\n", a.use_scaled());
    header(out, "jouleprof_split_unread_total", "counter",
           "Readings of a job's CPU time not taken (beyond what its user's jobs may cost, or "
           "failed): its use in those intervals went to other.");
    out += fmt::format("jouleprof_split_unread_total {}\n", a.unread());
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
    account_metrics(out, d);
    daemon_metrics(out, d, now_ns);
    return out;
}

} // namespace jp::daemon
