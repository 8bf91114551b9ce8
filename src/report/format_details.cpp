// SPDX-License-Identifier: BSD-3-Clause
// The lines under the table: how the node was measured, its power
// distribution against the rated power, idle accelerators, the baseline, the
// footprint, overhead, notes and events.
#include "core/duration.hpp"
#include "report/carbon.hpp"
#include "report/format.hpp"
#include "report/units.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace jp::report {
namespace {

// Over repeats, the mean and its std in one unit: "3012.6 ± 0.1 W", "3.01 ± 0.05 kW" (kW
// only where the std shows in it).
std::string stat_power(const Stat& s) {
    if (s.n < 2) {
        return power_text(s.mean);
    }
    if (std::abs(s.mean) >= 1000 && std::abs(s.std) >= 10) {
        return pm(s, 1e-3, 2) + " kW";
    }
    return pm(s, 1, 1) + " W";
}

std::string idle_line(const IdleStats& d) {
    std::string line =
        fmt::format("{} idle: {}, {:.1f} % of the node (mean utilisation "
                    "{:.1f} %)",
                    d.name, energy_text(d.energy_j), d.share.mean * 100, d.mean_util.mean);
    if (d.runs < d.of) {
        line += fmt::format(" in {} of {} runs", d.runs, d.of);
    }
    if (d.provenance == Provenance::estimated) {
        line += " (estimated)";
    }
    return line;
}

std::vector<std::string> unique_notes(const RepeatSummary& r) {
    std::vector<std::string> notes; // said once, not once per run
    const auto add = [&](const std::string& n) {
        if (std::ranges::find(notes, n) == notes.end()) {
            notes.push_back(n);
        }
    };
    for (const auto& run : r.runs) {
        std::ranges::for_each(run.notes, add);
        if (run.attribution && !run.attribution->exclusive) {
            std::ranges::for_each(run.attribution->notes, add);
        }
    }
    return notes;
}

void add_run_events(std::string& out, const RepeatSummary& r) {
    for (const auto& run : r.runs) {
        for (const auto& e : run.events) {
            out += fmt::format("  event (run {}): {}: {}\n", run.run.repeat, e.kind, e.detail);
        }
        if (const auto outcome = outcome_text(run.run); !outcome.empty()) {
            out += fmt::format("  run {}: {}\n", run.run.repeat, outcome);
        }
    }
}

// With repeats, each run's phases on one line (the table shows their mean ± std).
void add_run_phases(std::string& out, const RepeatSummary& r) {
    if (r.runs.size() < 2 || r.phases.empty()) {
        return;
    }
    for (const auto& run : r.runs) {
        std::string line;
        for (const auto& p : run.phase_totals) {
            line +=
                fmt::format("{}{} {}, {:.1f} W, {}", line.empty() ? "" : "; ", p.name,
                            energy_text(p.node.energy_j), p.node.avg_w, runtime_text(p.runtime_s));
        }
        out += fmt::format("  run {} phases: {}\n", run.run.repeat,
                           line.empty() ? std::string{"none"} : line);
    }
}

} // namespace

std::string
format_power(const PowerStats& p, const std::optional<Rating>& rating, std::size_t runs) {
    std::string out = "peak " + power_text(p.peak_w);
    if (rating && rating->watts > 0) {
        out += fmt::format(" = {:.0f} % of rated {} ({})", 100 * p.peak_w / rating->watts,
                           power_text(rating->watts), rating->source);
    }
    const double step_ms = static_cast<double>(p.step_ns) * 1e-6;
    out += step_ms < 10     ? fmt::format(" at {:.2g} ms resolution", step_ms)
           : step_ms < 1000 ? fmt::format(" at {:.0f} ms resolution", step_ms)
                            : fmt::format(" at {:.1f} s resolution", step_ms * 1e-3);
    if (p.peak_bound) { // where the sensors' bounds put the highest window's true mean
        out += fmt::format(" (the true peak at this resolution lies in {}–{} by the sensors' "
                           "bounds{})",
                           power_text(p.peak_bound->low_w), power_text(p.peak_bound->high_w),
                           assumptions_text(p.peak_bound->assumed));
    }
    if (runs > 1) {
        out += fmt::format(" (highest of {} runs)", runs);
    }
    // A moving peak's range by the sensors' bounds, where they give one.
    const auto range = [](const std::optional<PowerRange>& r) {
        return r ? fmt::format(" (sensors: {}–{})", power_text(r->low_w), power_text(r->high_w))
                 : std::string{};
    };
    if (p.peak_1s_w) {
        out += "; 1 s peak " + power_text(*p.peak_1s_w) + range(p.peak_1s_bound);
    }
    if (p.peak_60s_w) {
        out += "; 60 s peak " + power_text(*p.peak_60s_w) + range(p.peak_60s_bound);
    }
    out += fmt::format("; p50 {}, p95 {}, p99 {}", stat_power(p.p50_w), stat_power(p.p95_w),
                       stat_power(p.p99_w));
    if (p.threshold_w) {
        // As given: 3012.55 W is not "3.01 kW", the p50 beside it.
        out += fmt::format("; above {} W for {} s", *p.threshold_w, // shortest exact form
                           pm(p.seconds_above, 1, 1));
    }
    if (!rating) {
        out += " (rated power unknown: set [node] rated_watts in the config)";
    }
    return out;
}

// Where the sensors put the job's share (on the mean, with repeats), if they bound it.
std::string job_bound_text(const RepeatSummary& r) {
    if (!r.job_energy_j || !r.job_energy_j->sensor) {
        return {};
    }
    const auto& b = *r.job_energy_j->sensor;
    const char* on = r.runs.size() > 1 ? " on the mean" : "";
    const std::string why = std::string{b.dominant} + assumptions_text(b.assumed);
    if (b.half_width() > std::abs(r.job_energy_j->mean)) {
        return fmt::format("; not measurable at the sensors' resolution: {:.3g}–{:.3g} J{} ({})",
                           b.low, b.high, on, why);
    }
    return fmt::format("; the sensors bound it to {:.4g}–{:.4g} J{} ({})", b.low, b.high, on, why);
}

std::vector<std::string> attribution_lines(const RepeatSummary& r) {
    std::vector<double> job;
    std::vector<double> other;
    std::vector<double> unallocated;
    std::vector<double> node;
    bool exclusive = true;
    const Attribution* last = nullptr;
    for (const auto& run : r.runs) {
        if (!run.attribution) {
            return {}; // a run without usage: the node's figures only, as before
        }
        last = &*run.attribution;
        exclusive = exclusive && last->exclusive;
        job.push_back(last->node.job_j());
        other.push_back(last->node.other_j);
        unallocated.push_back(last->node.unallocated_j);
        node.push_back(last->node.node_j());
    }
    if (last == nullptr) {
        return {};
    }
    if (exclusive) {
        return {"job: exclusive (given the whole node; other processes drew under 1 % of it): "
                "the node's figures are the job's"};
    }
    const auto j = stat_of(job);
    const auto n = stat_of(node);
    return {fmt::format("job's share: {} of the node's {} ({:.1f} %{}); unallocated {}, other "
                        "processes {}{}",
                        energy_text(j), energy_text(n.mean),
                        n.mean > 0 ? 100 * j.mean / n.mean : 0.0, job_bound_text(r),
                        energy_text(stat_of(unallocated).mean), energy_text(stat_of(other).mean),
                        r.runs.size() > 1 ? " (per run, mean)" : ""),
            fmt::format("attributed: {}; the job used {:.2f} CPU-s of {:.2f} busy, on {:g} of {:g} "
                        "CPUs given; its CPU time from {}",
                        last->method, last->job_cpu_s, last->node_busy_s, last->given_cpus,
                        last->node_cpus, last->job_cpu)};
}

std::string format_details(const RepeatSummary& r, const FormatOptions& options) {
    const auto& first = r.runs.front();
    std::string out =
        fmt::format("  runtime {} s; node: {}\n", pm(r.runtime_s, 1, 3), first.node_basis);
    for (const auto& line : attribution_lines(r)) {
        out += (line.starts_with("attributed") ? "    " : "  ") + line + "\n";
    }
    auto rating = r.rating;
    if (!rating && options.rated_watts) {
        rating = Rating{*options.rated_watts, "config"};
    }
    if (r.power) {
        out += "  power: " + format_power(*r.power, rating, r.runs.size()) + "\n";
    }
    add_run_phases(out, r);
    for (const auto& d : r.idle) {
        out += "  " + idle_line(d) + "\n";
    }
    if (r.idle_w && r.dynamic_energy_j) {
        out +=
            fmt::format("  idle baseline {:.1f} W -> dynamic energy {} (node − idle × runtime)\n",
                        *r.idle_w, energy_text(*r.dynamic_energy_j));
        if (r.dynamic_energy_j->mean < 0) { // shown as it is, not floored: it says something
            out += fmt::format(
                "  note: the dynamic energy is negative: the idle baseline ({:.1f} W) is above the "
                "job's average node power ({:.1f} W), so the baseline was measured under more "
                "load than the job had (another process, a fan, a warmer node) or the node's "
                "power drifted; measure it right before the job (--baseline) on a quiet node\n",
                *r.idle_w, r.node_avg_w.mean);
        }
    }
    if (auto f = group_footprint(r, options.carbon)) {
        out += std::string{r.runs.size() > 1 ? "  footprint (per run, mean): " : "  footprint: "} +
               format_footprint(*f) + "\n";
    }
    const double total_rt = r.runtime_s.mean * static_cast<double>(r.runs.size());
    out += fmt::format("  monitor overhead: {:.3f} s CPU over {} ({:.2f} % of one core)\n",
                       r.monitor_cpu_s, runtime_text(total_rt),
                       total_rt > 0 ? 100 * r.monitor_cpu_s / total_rt : 0.0);
    for (const auto& n : unique_notes(r)) {
        out += "  note: " + n + "\n";
    }
    add_run_events(out, r);
    for (const auto& t : r.traces) {
        out += "  trace: " + t + "\n";
    }
    return out;
}

std::optional<Footprint> group_footprint(const RepeatSummary& r, const CarbonConfig& factors) {
    auto f = footprint(r.node_energy_j.mean, factors, r.node_energy_j.sensor);
    if (f) { // a mean over runs with one estimated figure is no measurement
        f->estimated = least_certain(r) == Provenance::estimated;
        f->lower_bound = any_lower_bound(r);
    }
    return f;
}

} // namespace jp::report
