// SPDX-License-Identifier: BSD-3-Clause
// The job's result as text (the table printed at a step's end and by
// `jouleprof report DIR`) and as JSON.
#include "report/format.hpp"

#include "report/job/detail.hpp"
#include "report/job/format.hpp"
#include "report/units.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace jp::report::job {
namespace {

std::string seconds(std::int64_t ns) {
    return fmt::format("{:.3f}", static_cast<double>(ns) * 1e-9);
}

std::string ms_text(std::int64_t ns) {
    return fmt::format("{:.1f} ms", static_cast<double>(ns) * 1e-6);
}

std::string offset_text(const NodeClock& c) {
    if (!c.error_ns) {
        return "not measured";
    }
    return fmt::format("{:+.1f} ±{:.1f} ms", static_cast<double>(c.offset_ns) * 1e-6,
                       static_cast<double>(*c.error_ns) * 1e-6);
}

std::string title(const JobResult& j) {
    std::string what = j.job_id.empty()    ? std::string{"Job"}
                       : j.step == "batch" ? fmt::format("Job {}, batch step", j.job_id)
                                           : fmt::format("Job {}, step {}", j.job_id, j.step);
    const auto of = j.expected_nodes > j.nodes.size()
                        ? fmt::format("{} of {} nodes", j.nodes.size(), j.expected_nodes)
                        : fmt::format("{} node{}", j.nodes.size(), j.nodes.size() == 1 ? "" : "s");
    return fmt::format("{} ({}): {}, {}{}", what, j.label, of, j.status,
                       j.partial ? ", PARTIAL" : "");
}

void spread_line(std::string& out, const JobResult& j) {
    if (j.nodes.size() < 2) {
        return;
    }
    const auto u = energy_unit(j.energy.max);
    out += fmt::format(
        "  Spread across nodes: energy {:.{}f}–{:.{}f} {} (cv {:.1f} %, lowest {}, highest {}); "
        "runtime {}–{}; average power {}–{}\n",
        j.energy.min * u.per_joule, u.digits, j.energy.max * u.per_joule, u.digits, u.name,
        j.energy.cv * 100, j.energy.min_node, j.energy.max_node, runtime_text(j.runtime.min),
        runtime_text(j.runtime.max), power_text(j.avg_power.min), power_text(j.avg_power.max));
    if (j.stragglers.empty()) {
        out += "  Stragglers: none (every node started and ended within a second, or 5 % of its "
               "runtime, of the median node)\n";
    }
    for (const auto& s : j.stragglers) {
        out += fmt::format("  Straggler: {} {} {:.2f} s after the median node\n", s.node,
                           s.edge == "end" ? "ended" : "started", s.late_s);
    }
}

void nodes_table(std::string& out, const JobResult& j) {
    const auto u = energy_unit(j.energy.max);
    out += fmt::format("\n  {:<16} {:>13} {:>11} {:>11} {:>10} {:>9} {:>9} {:>18}  {:<11} {}\n",
                       "Node", fmt::format("Energy [{}]", u.name), "Avg power", "Peak power",
                       "Runtime", "Start [s]", "End [s]", "Clock offset", "Status", "Node figure");
    for (const auto& n : j.nodes) {
        const auto& it = n.run.node;
        out += fmt::format(
            "  {:<16} {:>13} {:>11} {:>11} {:>10} {:>9} {:>9} {:>18}  {:<11} {}\n", n.node,
            basis_of(it).mark(fmt::format("{:.{}f}", it.energy_j * u.per_joule, u.digits)),
            power_text(it.avg_w), it.peak_w ? power_text(*it.peak_w) : "–",
            runtime_text(n.run.runtime_s), seconds(n.start_ns), seconds(n.end_ns),
            offset_text(n.clock), n.ended ? n.run.run.status : "no end", provenance_text(it));
    }
}

void parts_table(std::string& out, const JobResult& j) {
    if (j.parts.empty()) {
        return;
    }
    const auto u = energy_unit(j.energy_j);
    out += fmt::format("\n  {:<16} {:>13} {:>7} {:>6} {:>22}  {}\n", "Part (all nodes)",
                       fmt::format("Energy [{}]", u.name), "Share", "Nodes",
                       fmt::format("Per node [{}]", u.name), "Provenance");
    for (const auto& p : j.parts) {
        // The row sums by domain what the nodes' tables name by channel: those names, once.
        std::string of;
        if (p.channels.size() != 1 || p.channels.front() != p.name) {
            of = fmt::format(": {}", fmt::join(p.channels, " + "));
        }
        out += fmt::format("  {:<16} {:>13.{}f} {:>6.1f}% {:>6} {:>22}  {}\n", p.name,
                           p.energy_j * u.per_joule, u.digits, p.share * 100, p.nodes,
                           fmt::format("{:.{}f}–{:.{}f}", p.per_node.min * u.per_joule, u.digits,
                                       p.per_node.max * u.per_joule, u.digits),
                           std::string{to_string(p.provenance)} + of +
                               bound_note(p.bound, p.energy_j));
    }
}

void phases_table(std::string& out, const JobResult& j) {
    if (j.phases.empty()) {
        return;
    }
    const auto u = energy_unit(j.energy_j);
    out += fmt::format("\n  {:<16} {:>6} {:>13} {:>9} {:>9}  {}\n", "Phase (all nodes)", "Nodes",
                       fmt::format("Energy [{}]", u.name), "From [s]", "To [s]",
                       "Duration per node (slowest)");
    for (const auto& p : j.phases) {
        out +=
            fmt::format("  {:<16} {:>6} {:>13} {:>9} {:>9}  {}–{} ({}){}\n", p.name,
                        fmt::format("{}/{}", p.nodes, j.nodes.size()),
                        p.basis.mark(fmt::format("{:.{}f}", p.energy_j * u.per_joule, u.digits)),
                        seconds(p.begin_ns), seconds(p.end_ns), runtime_text(p.duration_s.min),
                        runtime_text(p.duration_s.max), p.duration_s.max_node,
                        p.open_at_end ? ", open at the end" : "", bound_note(p.bound, p.energy_j));
    }
}

// The step's GPUs it left idle, on every node: what they drew for nothing;
// then, on shared nodes, the GPUs that were not the step's.
void gpu_lines(std::string& out, const JobResult& j) {
    if (j.idle_gpu_j > 0) {
        out += fmt::format("\n  Idle GPUs of the step (mean utilisation at or below the "
                           "threshold): {} in all, {:.1f} % of the job's energy\n",
                           energy_text(j.idle_gpu_j),
                           j.energy_j > 0 ? 100 * j.idle_gpu_j / j.energy_j : 0.0);
        for (const auto& n : j.nodes) {
            for (const auto& d : n.run.idle) {
                if (is_step_gpu(n, d.name)) {
                    out += fmt::format("    {} {}: {} ({:.1f} % of the node, {:.1f} % utilised)\n",
                                       n.node, d.name, energy_text(d.energy_j), 100 * d.share,
                                       d.mean_util);
                }
            }
        }
    }
    if (j.other_gpu_j > 0) {
        out += fmt::format("\n  GPUs on the nodes that were not the step's (another job's, or "
                           "unallocated): {} in the nodes' energy\n",
                           energy_text(j.other_gpu_j));
        for (const auto& n : j.nodes) {
            for (const auto& p : n.run.parts) {
                if (p.domain == Domain::gpu && !is_step_gpu(n, p.name)) {
                    out += fmt::format("    {} {}: {} (the step's GPUs: {})\n", n.node, p.name,
                                       energy_text(p.energy_j), n.gpus);
                }
            }
        }
    }
}

// The step's share of its nodes, first: what the step drew beside what the nodes drew.
void share_lines(std::string& out, const JobResult& j) {
    if (!j.share) {
        return;
    }
    const auto& s = *j.share;
    if (s.all_exclusive()) {
        out += fmt::format("  The step had {} to itself: the nodes' figures are the step's\n",
                           s.attributed == 1 ? "its node" : "every node");
        return;
    }
    out +=
        fmt::format("  Step's share {}{} of the nodes' {}: {}\n",
                    j.basis.mark(energy_text(s.job_j())), bound_note(s.share.job_bound, s.job_j()),
                    j.basis.mark(energy_text(j.energy_j)), share_split_text(s));
    out += fmt::format("  Method: {}{}\n",
                       s.method.empty() ? "as each node's report says (they differ)" : s.method,
                       s.exclusive > 0 ? fmt::format("; {} of {} nodes the step's alone",
                                                     s.exclusive, s.attributed)
                                       : std::string{});
    if (const auto others = other_jobs_text(s); !others.empty()) {
        out += fmt::format("  Jobs beside it (jouleprofd): {}\n", others);
    }
}

} // namespace

std::string share_split_text(const ShareAcross& s) {
    const auto& sh = s.share;
    return fmt::format(
        "idle {} by allocation + dynamic {} by use{}; unallocated {}, other processes {}",
        energy_text(sh.job_idle_j), energy_text(sh.job_dynamic_j),
        s.whole.empty() ? std::string{}
                        : fmt::format(" + {} of nodes counted whole", energy_text(s.whole_j)),
        energy_text(sh.unallocated_j), energy_text(sh.other_j));
}

std::string bound_note(const std::optional<Bound>& b, double energy_j) {
    if (!b || b->half_width() <= 0) {
        return {};
    }
    const auto range = energy_range_text(b->low, b->high);
    const auto assumes = assumptions_text(b->assumed);
    if (b->half_width() > std::abs(energy_j)) {
        return fmt::format(" (not measurable at the sensors' resolution: {}, {}{})", range,
                           b->dominant, assumes);
    }
    return fmt::format(" (sensors: {}, {}{})", range, b->dominant, assumes);
}

std::string format_text(const JobResult& j) {
    std::string out = title(j) + "\n";
    share_lines(out, j);
    const bool shared = j.share && !j.share->all_exclusive();
    out += fmt::format("  {} {}{}   Average power {}   Runtime {}\n",
                       shared ? "Nodes' energy" : "Energy", j.basis.mark(energy_text(j.energy_j)),
                       bound_note(j.bound, j.energy_j), power_text(j.avg_w),
                       runtime_text(j.runtime_s));
    if (j.peak_w) {
        out += fmt::format("  Peak power {} (the nodes' sum over {}, at {} s)\n",
                           power_text(*j.peak_w), ms_text(j.step_ns), seconds(j.peak_at_ns));
    }
    out += j.clocks_measured
               ? fmt::format("  Nodes aligned on the file system's clock within ±{}\n",
                             ms_text(j.clock_error_ns))
               : std::string{"  Nodes aligned on their own clocks (offsets not measured)\n"};
    spread_line(out, j);
    nodes_table(out, j);
    parts_table(out, j);
    gpu_lines(out, j);
    phases_table(out, j);
    if (j.slurm) {
        const double diff = j.slurm->consumed_j > 0
                                ? (j.energy_j - j.slurm->consumed_j) / j.slurm->consumed_j * 100
                                : 0;
        const bool inside =
            j.bound && j.bound->low <= j.slurm->consumed_j && j.slurm->consumed_j <= j.bound->high;
        const bool above_parts =
            j.basis.lower_bound && j.bound && j.slurm->consumed_j > j.bound->high;
        out += fmt::format("\n  Slurm's energy (sacct ConsumedEnergyRaw, step {}): {:.0f} J; "
                           "jouleprof's node energy {}: {:+.1f} %{}{}\n",
                           j.slurm->step, j.slurm->consumed_j, energy_text(j.energy_j), diff,
                           !j.bound      ? ""
                           : inside      ? " (inside jouleprof's sensors' bound)"
                           : above_parts ? " (above the bound of the parts jouleprof measured: "
                                           "the rest of the node is not measured here)"
                                         : " (outside jouleprof's sensors' bound)",
                           shared ? fmt::format("; the step's share {} (sacct counts the whole "
                                                "node on a shared one)",
                                                energy_text(j.share->job_j()))
                                  : std::string{});
    }
    if (j.partial) {
        out += "\n  PARTIAL: the figures cover the nodes listed only\n";
    }
    for (const auto& m : j.missing) {
        out += fmt::format("  missing: {} (no trace)\n", m);
    }
    for (const auto& u : j.unreadable) {
        out += fmt::format("  unreadable: {}\n", u);
    }
    for (const auto& line : j.basis.legend()) {
        out += "  " + line + "\n";
    }
    for (const auto& n : j.notes) {
        out += "  note: " + n + "\n";
    }
    return out;
}

} // namespace jp::report::job
