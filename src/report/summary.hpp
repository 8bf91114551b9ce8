// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Turns one run of a trace into the figures users act on: runtime, node
// energy, average and peak power, each part, the rest of the node, with the
// provenance of every figure; the same figures for every phase marked inside
// the job; the node's power distribution; idle accelerators. Also aggregates
// repeats as mean ± sample std.
#include "report/anchored.hpp"
#include "report/attribution_types.hpp"
#include "report/basis.hpp"
#include "report/bound.hpp"
#include "report/distribution.hpp"
#include "report/power_band.hpp"
#include "trace/reader.hpp"

#include <cmath>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace jp::report {

struct Item {
    std::string name;
    Domain domain = Domain::other;
    Provenance provenance = Provenance::measured;
    std::string backend;
    double energy_j = 0;
    double avg_w = 0;
    std::optional<double> peak_w;
    // Where its sensor's bounds put the true peak (an energy counter's; report/power_band.hpp).
    std::optional<PowerRange> peak_bound;
    std::optional<double> mean_util; // GPUs: mean utilisation in %, when known
    bool counted = true;
    std::string parent;
    // Seconds into the run of the last reading of a channel that was lost (gone,
    // unreadable); its figures cover only the time until then, and the rest of
    // the run is not counted (not as zero either). For the node: its first lost part.
    std::optional<double> lost_at_s;
    // An energy counter that never moved over the run and that the monitor saw stuck
    // (5 s or more unchanged): it measured nothing (a virtual machine's power PMU that
    // reads zero, a disabled zone), whatever its provenance says.
    bool never_changed = false;
    // The node without a node meter or a rest-of-node model: the sum of its
    // parts, so the true figure is at least this.
    bool lower_bound = false;
    // Where the energy can be, from the sensor's own limits (report/bound.hpp,
    // docs/uncertainty.md): energy counters and what is summed from them only.
    std::optional<Bound> bound;
    // On a shared node: who the energy belongs to (the job, unallocated, other
    // processes; report/attribution.hpp). Absent where the run has no usage recorded.
    std::optional<JobShare> share;
    // The bound is wider than the figure: not measurable at this sensor's resolution.
    [[nodiscard]] bool not_measurable() const noexcept {
        return bound && bound->half_width() > std::abs(energy_j);
    }
};

// How a node figure was obtained: estimated by a model, a lower bound, both or neither.
[[nodiscard]] inline Basis basis_of(const Item& node) {
    return {node.provenance == Provenance::estimated, node.lower_bound};
}

// The figures of one window of a run: the whole run, or one phase.
struct Figures {
    double runtime_s = 0;
    Item node;
    std::optional<Item> rest;
    std::vector<Item> parts;  // counted parts that add up to the node
    std::vector<Item> others; // sub-domains and duplicates, shown but not summed
};

// A phase from begin/end markers (one occurrence), or all occurrences of one
// name together (their union in time: nested occurrences are not counted twice).
struct PhaseSummary : Figures {
    std::string name;
    std::int64_t begin_ns = 0; // first begin
    std::int64_t end_ns = 0;   // last end
    bool open_at_end = false;  // (one of) its occurrence(s) had no end marker
    std::size_t occurrences = 1;
};

// A GPU the job left idle: its mean utilisation stayed at or below the threshold.
struct IdleDevice {
    std::string name;
    double energy_j = 0;
    double share = 0;     // of the node's energy, 0..1
    double mean_util = 0; // percent
    Provenance provenance = Provenance::measured;
};

struct RunSummary : Figures {
    trace::RunInfo run;
    std::string trace; // the file it was read from
    // False when the monitor stopped before the end edge, or a channel was lost
    // during the run (its Item says when).
    bool complete = true;
    std::string node_basis; // how the node figure was obtained, in words
    std::vector<std::string> notes;
    std::vector<trace::Event> events;
    std::vector<PhaseSummary> phases;       // each begin/end pair, by begin time
    std::vector<PhaseSummary> phase_totals; // one per name, in order of first begin
    std::vector<trace::Marker> points;      // point markers
    std::optional<Distribution> power;      // node power over the run
    std::int64_t power_step_ns = 0;         // resolution of that distribution
    // Where the node's power lay window by window from the sensors' bounds (the HTML
    // profile's band); empty where the node's energy has none.
    std::vector<BandPoint> power_band;
    std::vector<IdleDevice> idle;
    std::optional<Rating> rating; // the node's rated power, from the trace
    std::optional<double> idle_w; // the trace's idle baseline, if it has one
    // The job's share of the node; absent when the trace has no usage for the run.
    std::optional<Attribution> attribution;
    // Each GPU counter read at anchors: how much of it its power field saw.
    std::vector<FieldCoverage> coverage;
};

// Node model figures recorded in the trace's meta at measurement time.
struct NodeFacts {
    std::optional<double> rest_watts;
    std::optional<double> rated_watts;
};
[[nodiscard]] NodeFacts node_facts(const trace::Reader& reader);

struct SummaryOptions {
    std::optional<double> threshold_w; // time with node power above this is reported
    double idle_util_percent = 1.0;    // a GPU whose mean utilisation is at or below is idle
};

[[nodiscard]] Result<RunSummary>
summarize_run(trace::Reader& reader, const trace::RunInfo& run, const SummaryOptions& options = {});

// The figures of [t0, t1] within a run (trace time, ns); clamped to the run.
[[nodiscard]] Result<Figures> summarize_window(trace::Reader& reader,
                                               const trace::RunInfo& run,
                                               std::int64_t t0,
                                               std::int64_t t1);

struct Stat {
    double mean = 0;
    double std = 0; // sample standard deviation (n-1); 0 for one value
    std::size_t n = 0;
    // Energy and average power: where the mean's truth lies from the sensors'
    // own limits (the mean of each run's bound, where every run has one). The
    // spread between runs (std) is a different thing: both are shown.
    std::optional<Bound> sensor;
};
[[nodiscard]] Stat stat_of(const std::vector<double>& values);
// The bound on the mean of n figures from each one's bound (every one must have
// one, else nullopt): the mean of the lows and of the highs, named by the widest.
[[nodiscard]] std::optional<Bound> mean_bound(std::span<const std::optional<Bound>> bounds);

// Mean ± std of Figures over runs. part_* hold the parts, then "rest", in order.
struct FigureStats {
    Stat runtime_s, node_energy_j, node_avg_w, node_peak_w;
    // The job's share of the node (docs/attribution.md), when every run has one.
    std::optional<Stat> job_energy_j;
    // The job's energy: its share where attributed, else the node's.
    [[nodiscard]] const Stat& job_or_node_j() const noexcept {
        return job_energy_j ? *job_energy_j : node_energy_j;
    }
    // The job's average power (its share over its runtime), when every run has a share: the
    // power beside job_or_node_j(), on the same footing.
    std::optional<Stat> job_avg_w;
    [[nodiscard]] const Stat& job_or_node_w() const noexcept {
        return job_avg_w ? *job_avg_w : node_avg_w;
    }
    std::vector<std::pair<std::string, Stat>> part_energy_j;
    std::vector<std::pair<std::string, Stat>> part_avg_w;
    std::vector<std::pair<std::string, Stat>> part_peak_w;
};

struct PhaseStats : FigureStats {
    std::string name;
    std::size_t runs = 0;        // runs in which the phase occurs
    std::size_t occurrences = 0; // summed over those runs
};

// Node power distribution over a group's runs.
struct PowerStats {
    std::int64_t step_ns = 0;             // finest resolution among the runs
    double peak_w = 0;                    // highest over the runs, at sample resolution
    std::optional<PowerRange> peak_bound; // the runs' highest ends; absent if a run has none
    std::optional<double> peak_1s_w;
    std::optional<double> peak_60s_w;
    Stat mean_w, p50_w, p95_w, p99_w;
    // The sensors' bounds: on the peaks the runs' highest ends, on the percentiles (means
    // over the runs) the means of the runs' ends; absent where a run has none.
    std::optional<PowerRange> peak_1s_bound, peak_60s_bound, p50_bound, p95_bound, p99_bound;
    std::optional<double> threshold_w;
    Stat seconds_above;
};

struct IdleStats {
    std::string name;
    std::size_t runs = 0; // runs in which it was idle
    std::size_t of = 0;   // runs in the group
    Stat energy_j, share, mean_util;
    Provenance provenance = Provenance::measured;
};

struct RepeatSummary : FigureStats {
    std::string label;
    std::vector<RunSummary> runs;         // the measured runs pooled into the figures
    std::vector<RunSummary> left_out;     // failed or interrupted runs: shown, not pooled
    bool all_failed = false;              // no run succeeded: the figures pool the failed ones
    std::optional<double> idle_w;         // from a baseline run
    std::optional<Stat> dynamic_energy_j; // node energy − idle power × runtime
    double monitor_cpu_s = 0;             // summed over runs
    std::vector<PhaseStats> phases;       // per phase name, in order of first appearance
    std::optional<PowerStats> power;
    std::vector<IdleStats> idle;
    std::optional<Rating> rating;
    std::vector<std::string> traces; // the files its runs came from
};

// Whether a run's job failed: a non-zero exit status, killed by a signal, the
// measurement interrupted, or not finished (its monitor killed, or still
// measuring). Such runs are not pooled with good ones.
[[nodiscard]] bool run_failed(const trace::RunInfo& run);
// "failed (exit status 2)", "killed (SIGKILL)", "interrupted (SIGINT)",
// "unfinished (...)" for a run with no end recorded; "" for a good run.
[[nodiscard]] std::string outcome_text(const trace::RunInfo& run);
// A job's end from its shell-style status alone: "ok", "failed (exit status 2)",
// "interrupted (SIGINT)" for 128 + SIGINT, SIGTERM or SIGHUP (as the monitor
// classifies a user's or a scheduler's stop), "failed (exit status 137 = 128 +
// SIGKILL)" otherwise (a signal, or a job that exited so: the number cannot tell).
[[nodiscard]] std::string exit_text(int shell_code);

// Mean ± std over the runs (which must not be empty) of one group.
[[nodiscard]] RepeatSummary aggregate_runs(std::string label, std::vector<RunSummary> runs);

// Groups measured runs by label (and by trace too when by_trace), in order of
// first appearance, and aggregates each group: its good runs when it has any
// (the failed ones left out), else its failed runs, marked all_failed.
[[nodiscard]] std::vector<RepeatSummary> group_runs(std::vector<RunSummary> runs, bool by_trace);

// Summarises every run of a trace; measured runs grouped by label.
[[nodiscard]] Result<std::vector<RepeatSummary>>
summarize_trace(trace::Reader& reader, const SummaryOptions& options = {});

// The measured runs of every trace (warm-ups left out, baselines only as idle_w).
[[nodiscard]] Result<std::vector<RunSummary>> measured_runs(trace::Reader& reader,
                                                            const SummaryOptions& options = {});
// The same from summaries of every run already computed (in run order).
[[nodiscard]] std::vector<RunSummary> measured_runs(std::vector<RunSummary> all);

// Several traces: runs of the same label merge into one group unless by_trace.
// A file named twice (or through another path) counts once. Errors name the trace.
[[nodiscard]] Result<std::vector<RepeatSummary>>
summarize_traces(std::span<const std::filesystem::path> traces,
                 const SummaryOptions& options = {},
                 bool by_trace = false);

// A trace, whole or one label of it (the command line's TRACE:LABEL).
struct TraceSelection {
    std::filesystem::path trace;
    std::optional<std::string> label; // every label when absent
};

// Whether a selection asks for a trace's runs of a label (paths compared as spelt: name each
// trace one way first, cli::unify_paths).
[[nodiscard]] bool
matches(const TraceSelection& s, const std::filesystem::path& trace, const std::string& label);

// The same over selections: a trace named whole gives all its runs, one named with labels only
// those labels' runs (a trace given whole and with a label: whole). A label a trace has no
// measured run of fails (ErrorKind::config), naming the labels it has.
[[nodiscard]] Result<std::vector<RepeatSummary>>
summarize_traces(std::span<const TraceSelection> selections,
                 const SummaryOptions& options = {},
                 bool by_trace = false);

} // namespace jp::report
