// SPDX-License-Identifier: BSD-3-Clause
#include "core/signal_name.hpp"
#include "report/power_stats.hpp"
#include "report/summary.hpp"

#include <algorithm>
#include <csignal>
#include <fmt/format.h>
#include <map>

namespace jp::report {
namespace {

const Item* find_item(const Figures& f, const std::string& name) {
    if (name == "rest") {
        return f.rest ? &*f.rest : nullptr;
    }
    const auto it = std::ranges::find(f.parts, name, &Item::name);
    return it == f.parts.end() ? nullptr : &*it;
}

// Part names over all windows, in order of first appearance, then "rest".
std::vector<std::string> part_names(const std::vector<const Figures*>& figs) {
    std::vector<std::string> names;
    bool rest = false;
    for (const auto* f : figs) {
        for (const auto& p : f->parts) {
            if (std::ranges::find(names, p.name) == names.end()) {
                names.push_back(p.name);
            }
        }
        rest = rest || f->rest.has_value();
    }
    if (rest) {
        names.emplace_back("rest");
    }
    return names;
}

// An item's bound on its average power: its energy's over the window's length.
// An energy's bound over a runtime: the average power's.
std::optional<Bound> per_second(const std::optional<Bound>& energy, double runtime_s) {
    if (!energy || runtime_s <= 0) {
        return std::nullopt;
    }
    auto b = *energy;
    b.low /= runtime_s;
    b.high /= runtime_s;
    b.terms = b.terms.scaled(1 / runtime_s);
    return b;
}

std::optional<Bound> power_bound(const Item& it, double runtime_s) {
    return per_second(it.bound, runtime_s);
}

void add_part_stats(FigureStats& s, const std::vector<const Figures*>& figs) {
    for (const auto& name : part_names(figs)) {
        std::vector<double> e;
        std::vector<double> w;
        std::vector<double> pk;
        std::vector<std::optional<Bound>> eb;
        std::vector<std::optional<Bound>> wb;
        for (const auto* f : figs) {
            if (const Item* it = find_item(*f, name)) {
                e.push_back(it->energy_j);
                w.push_back(it->avg_w);
                eb.push_back(it->bound);
                wb.push_back(power_bound(*it, f->runtime_s));
                if (it->peak_w) {
                    pk.push_back(*it->peak_w);
                }
            }
        }
        s.part_energy_j.emplace_back(name, stat_of(e));
        s.part_avg_w.emplace_back(name, stat_of(w));
        s.part_peak_w.emplace_back(name, stat_of(pk));
        if (e.size() == figs.size()) { // a part some runs lack has no bound on its mean
            s.part_energy_j.back().second.sensor = mean_bound(eb);
            s.part_avg_w.back().second.sensor = mean_bound(wb);
        }
    }
}

void fill_stats(FigureStats& s, const std::vector<const Figures*>& figs) {
    std::vector<double> rt;
    std::vector<double> e;
    std::vector<double> w;
    std::vector<double> pk;
    std::vector<double> job;
    std::vector<double> job_w;
    std::vector<std::optional<Bound>> eb;
    std::vector<std::optional<Bound>> wb;
    std::vector<std::optional<Bound>> jb;
    std::vector<std::optional<Bound>> jwb;
    for (const auto* f : figs) {
        rt.push_back(f->runtime_s);
        e.push_back(f->node.energy_j);
        eb.push_back(f->node.bound);
        wb.push_back(power_bound(f->node, f->runtime_s));
        if (f->node.share) {
            job.push_back(f->node.share->job_j());
            jb.push_back(f->node.share->job_bound);
            // The job's average power: its share over its runtime (0 for a run of none, as
            // a node's average is).
            job_w.push_back(f->runtime_s > 0 ? f->node.share->job_j() / f->runtime_s : 0.0);
            jwb.push_back(per_second(f->node.share->job_bound, f->runtime_s));
        }
        w.push_back(f->node.avg_w);
        if (f->node.peak_w) {
            pk.push_back(*f->node.peak_w);
        }
    }
    s.runtime_s = stat_of(rt);
    s.node_energy_j = stat_of(e);
    s.node_energy_j.sensor = mean_bound(eb);
    s.node_avg_w = stat_of(w);
    s.node_avg_w.sensor = mean_bound(wb);
    s.node_peak_w = stat_of(pk);
    if (!job.empty() && job.size() == figs.size()) {
        s.job_energy_j = stat_of(job);
        s.job_energy_j->sensor = mean_bound(jb);
    }
    if (!job_w.empty() && job_w.size() == figs.size()) {
        s.job_avg_w = stat_of(job_w);
        s.job_avg_w->sensor = mean_bound(jwb);
    }
    add_part_stats(s, figs);
}

std::vector<PhaseStats> phase_stats(const std::vector<RunSummary>& runs) {
    std::vector<PhaseStats> out;
    std::vector<std::vector<const Figures*>> figs;
    for (const auto& run : runs) {
        for (const auto& p : run.phase_totals) {
            auto it = std::ranges::find(out, p.name, &PhaseStats::name);
            if (it == out.end()) {
                out.emplace_back().name = p.name;
                figs.emplace_back();
                it = out.end() - 1;
            }
            it->runs += 1;
            it->occurrences += p.occurrences;
            figs[static_cast<std::size_t>(it - out.begin())].push_back(&p);
        }
    }
    for (std::size_t i = 0; i < out.size(); ++i) {
        fill_stats(out[i], figs[i]);
    }
    return out;
}

std::vector<IdleStats> idle_stats(const std::vector<RunSummary>& runs) {
    std::vector<IdleStats> out;
    std::map<std::string, std::vector<const IdleDevice*>> by_name;
    for (const auto& run : runs) {
        for (const auto& d : run.idle) {
            if (!by_name.contains(d.name)) {
                out.emplace_back().name = d.name;
            }
            by_name[d.name].push_back(&d);
        }
    }
    for (auto& s : out) {
        std::vector<double> e;
        std::vector<double> share;
        std::vector<double> util;
        for (const auto* d : by_name[s.name]) {
            e.push_back(d->energy_j);
            share.push_back(d->share);
            util.push_back(d->mean_util);
            s.provenance = d->provenance;
        }
        s.runs = e.size();
        s.of = runs.size();
        s.energy_j = stat_of(e);
        s.share = stat_of(share);
        s.mean_util = stat_of(util);
    }
    return out;
}

void add_baseline(RepeatSummary& r) {
    std::vector<double> idle;
    std::vector<double> dyn;
    for (const auto& run : r.runs) {
        if (!run.idle_w) {
            return; // dynamic energy only when every run has a baseline
        }
        idle.push_back(*run.idle_w);
        dyn.push_back(run.node.energy_j - *run.idle_w * run.runtime_s);
    }
    r.idle_w = stat_of(idle).mean;
    r.dynamic_energy_j = stat_of(dyn);
}

} // namespace

bool run_failed(const trace::RunInfo& run) {
    return run.signal.has_value() || run.exit_code.value_or(0) != 0 ||
           run.status == "interrupted" || run.status == "failed" || !run.end_ns;
}

std::string outcome_text(const trace::RunInfo& run) {
    if (!run.end_ns) { // the trace cannot tell a live monitor from a stopped one
        return "unfinished (no end recorded: still being measured, or its monitor stopped)";
    }
    const bool interrupted = run.status == "interrupted";
    if (run.signal) {
        return fmt::format("{} ({})", interrupted ? "interrupted" : "killed",
                           signal_name(*run.signal));
    }
    if (const int code = run.exit_code.value_or(0); code != 0) {
        // A shell reports a job a signal ended as 128 + the signal.
        if (interrupted && code > 128 && code < 128 + 65) {
            return fmt::format("interrupted ({}; exit status {})", signal_name(code - 128), code);
        }
        return fmt::format("{} (exit status {})", interrupted ? "interrupted" : "failed", code);
    }
    if (interrupted || run.status == "failed") {
        return std::string{run.status};
    }
    return {};
}

std::string exit_text(int shell_code) {
    if (shell_code == 0) {
        return "ok";
    }
    if (shell_code > 128 && shell_code < 128 + 65) {
        const int sig = shell_code - 128;
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) { // as the monitor classifies it
            return fmt::format("interrupted ({})", signal_name(sig));
        }
        // A job a signal ended, or one that exited with this status: the number cannot tell.
        return fmt::format("failed (exit status {} = 128 + {})", shell_code, signal_name(sig));
    }
    return fmt::format("failed (exit status {})", shell_code);
}

RepeatSummary aggregate_runs(std::string label, std::vector<RunSummary> runs) {
    RepeatSummary r;
    r.label = std::move(label);
    r.runs = std::move(runs);
    std::vector<const Figures*> figs;
    for (const auto& run : r.runs) {
        figs.push_back(&run);
        r.monitor_cpu_s += run.run.monitor_cpu_s;
        if (std::ranges::find(r.traces, run.trace) == r.traces.end()) {
            r.traces.push_back(run.trace);
        }
        if (!r.rating) {
            r.rating = run.rating;
        }
    }
    fill_stats(r, figs);
    add_baseline(r);
    r.phases = phase_stats(r.runs);
    r.power = power_stats(r.runs);
    r.idle = idle_stats(r.runs);
    return r;
}

std::vector<RepeatSummary> group_runs(std::vector<RunSummary> runs, bool by_trace) {
    std::vector<std::pair<std::string, std::string>> order; // (trace or "", label)
    std::map<std::pair<std::string, std::string>, std::vector<RunSummary>> groups;
    for (auto& run : runs) {
        std::pair key{by_trace ? run.trace : std::string{}, run.run.label};
        if (!groups.contains(key)) {
            order.push_back(key);
        }
        groups[key].push_back(std::move(run));
    }
    std::vector<RepeatSummary> out;
    for (const auto& key : order) {
        auto& all = groups[key];
        std::vector<RunSummary> good;
        std::vector<RunSummary> bad;
        for (auto& run : all) {
            (run_failed(run.run) ? bad : good).push_back(std::move(run));
        }
        const bool all_failed = good.empty();
        auto r = aggregate_runs(key.second, std::move(all_failed ? bad : good));
        r.all_failed = all_failed;
        if (!all_failed) {
            r.left_out = std::move(bad);
        }
        out.push_back(std::move(r));
    }
    return out;
}

Result<std::vector<RunSummary>> measured_runs(trace::Reader& reader,
                                              const SummaryOptions& options) {
    std::vector<RunSummary> all;
    for (const auto& run : reader.runs()) {
        if (run.kind == "warmup") {
            continue;
        }
        auto s = summarize_run(reader, run, options);
        if (!s) {
            return std::unexpected(s.error());
        }
        all.push_back(std::move(*s));
    }
    return measured_runs(std::move(all));
}

std::vector<RunSummary> measured_runs(std::vector<RunSummary> all) {
    std::optional<double> idle_w;
    std::vector<RunSummary> out;
    for (auto& s : all) {
        if (s.run.kind == "warmup") {
            continue;
        }
        if (s.run.kind == "baseline") {
            idle_w = s.node.avg_w;
            continue;
        }
        out.push_back(std::move(s));
    }
    for (auto& s : out) {
        s.idle_w = idle_w;
    }
    return out;
}

Result<std::vector<RepeatSummary>> summarize_trace(trace::Reader& reader,
                                                   const SummaryOptions& options) {
    auto runs = measured_runs(reader, options);
    if (!runs) {
        return std::unexpected(runs.error());
    }
    return group_runs(std::move(*runs), false);
}

} // namespace jp::report
