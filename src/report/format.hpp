// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Text and JSON forms of summaries.
#include "config/config.hpp"
#include "report/carbon.hpp"
#include "report/summary.hpp"

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

namespace jp::report {

struct FormatOptions {
    CarbonConfig carbon;               // facility energy, CO2e and cost when any factor is set
    std::optional<double> rated_watts; // used for groups whose traces record no rating
    bool phase_detail = false;         // JSON: every occurrence (see run_to_json)
};

// A run's JSON lists each occurrence of a phase or point name up to this many;
// a name marked more often (a training step) is in "phase_totals" and named
// in "phases_not_listed"/"points_not_listed" with its count, unless every
// occurrence is asked for (report --phase-detail): 15,000 steps were 35 MB.
inline constexpr std::size_t k_occurrences_listed = 100;

// The study's table: per label, Consumption [kJ] ± std, Average power [W] ± std,
// Runtime (hh:mm:ss) and peak power for the node, each part, the rest and each
// phase, with provenance; then per label the power distribution against the
// rated power, idle accelerators, the baseline, the footprint and notes.
[[nodiscard]] std::string format_text(const std::vector<RepeatSummary>& summaries,
                                      const FormatOptions& options = {});
[[nodiscard]] nlohmann::json to_json(const std::vector<RepeatSummary>& summaries,
                                     const FormatOptions& options = {});

// Earlier forms: the rating comes from facts when a group has none.
[[nodiscard]] std::string format_text(const std::vector<RepeatSummary>& summaries,
                                      const NodeFacts& facts);
[[nodiscard]] nlohmann::json to_json(const std::vector<RepeatSummary>& summaries,
                                     const NodeFacts& facts);

// "12.345 ± 0.678" (scaled, fixed digits); no "±" for a single value.
[[nodiscard]] std::string pm(const Stat& s, double scale, int digits);
// "865.0 W", "8.4 kW", "8.43 kW".
[[nodiscard]] std::string power_text(double watts);
// "measured (powercap)", "derived", "estimated (model)".
[[nodiscard]] std::string provenance_text(const Item& item);
// ", 40.57–40.77 J (edge staleness)", ", not measurable here: 0.000–6.400 J (gap between
// readings)" when half its width is more than the value, "" for no width (the range as
// energy_range_text gives it).
[[nodiscard]] std::string bound_text(const Bound& b, double value);
// What a bound assumes, each after "; ": "; assumes ≤ 2× the peak seen", the GPU's power
// profile between its counter's reads, the power between a field's readings, an averaged
// field's windows following one another; empty if none.
[[nodiscard]] std::string assumptions_text(const Assumptions& a);
// The same as JSON booleans: PREFIX + "peak", "profile", "field" and "windows".
void add_assumptions_json(nlohmann::json& j, const std::string& prefix, const Assumptions& a);
// What each term adds to a bound's width: {"quantum", "edge_staleness",
// "gap_between_readings", "counter_jump", "idle_crossing", "shared_gpu", "between_readings",
// "ambiguous_wrap", "read_time"}
// (docs/uncertainty.md).
[[nodiscard]] nlohmann::json bound_terms_json(const BoundTerms& t);
// A bound's fields beside the figure `value` it bounds, for figure "energy" (energy_low_j,
// energy_high_j, energy_bound_j, bound_dominant, bound_terms, bound_assumes_peak,
// bound_assumes_profile, bound_assumes_field, bound_assumes_windows, measurable) or "job"
// (job_low_j, …, job_bound_dominant, …, job_measurable).
void add_bound_json(nlohmann::json& j, const Bound& b, double value, std::string_view figure);
[[nodiscard]] nlohmann::json stat_json(const Stat& s);
// One run as in to_json's "runs": figures, phases, power distribution, idle accelerators.
[[nodiscard]] nlohmann::json run_to_json(const RunSummary& run, bool phase_detail = false);

// Details of one group (the lines under the table), each line indented by two spaces.
[[nodiscard]] std::string format_details(const RepeatSummary& r, const FormatOptions& options);
// The job's share of the node in words (docs/attribution.md): the headline, then how it
// was made; one line when the node was the job's alone; none without usage.
[[nodiscard]] std::vector<std::string> attribution_lines(const RepeatSummary& r);
// The power distribution line ("peak 8.4 kW = 82 % of rated 10.2 kW (config); ...").
[[nodiscard]] std::string
format_power(const PowerStats& p, const std::optional<Rating>& rating, std::size_t runs);

// A group's runs in words: "3 runs; 1 left out: run 2 failed (exit status 1)", "1 run,
// killed (SIGKILL)".
[[nodiscard]] std::string runs_text(const RepeatSummary& r);

// What the report was asked of, as its JSON gives it: "traces" (each file once), "trace"
// (only for one) and "selections" ([{trace, label}], label null for a whole trace).
[[nodiscard]] nlohmann::json inputs_json(std::span<const TraceSelection> selections);

// A group's name where others are listed: its label, or "<trace stem>:<label>" where another
// group has the same label (compare, and report --by-trace).
[[nodiscard]] std::string group_name(const RepeatSummary& g, const std::vector<RepeatSummary>& all);

// A group's node figure as its least certain run has it (one estimated run makes the mean an
// estimate), and whether any run's is a lower bound: compare's notes and JSON, the footprint.
[[nodiscard]] Provenance least_certain(const RepeatSummary& g);
[[nodiscard]] bool any_lower_bound(const RepeatSummary& g);

// Every run attributed, and not every one given the whole node: the group's figures are the
// job's share of a shared node (attribution_lines' rule).
[[nodiscard]] bool shared_node(const RepeatSummary& r);

// The group's footprint (nullopt without a factor), said to be estimated or a lower bound as
// its node energy is.
[[nodiscard]] std::optional<Footprint> group_footprint(const RepeatSummary& r,
                                                       const CarbonConfig& factors);

} // namespace jp::report
