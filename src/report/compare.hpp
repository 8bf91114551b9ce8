// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Runs side by side: energy and runtime and their ratios to a baseline, average
// power, and the error a runtime-based estimate (runtime × the baseline's
// average node power, as much of the literature assumes) would have made.
#include "report/difference.hpp"
#include "report/summary.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace jp::report {

struct CompareEntry {
    std::string name; // the label, or "<trace stem>:<label>" when labels repeat
    RepeatSummary group;
    // Each none where it has no meaning: a ratio to a baseline of 0 (the baseline's own: 1),
    // an estimate from a baseline power of 0, an error of an energy of 0.
    std::optional<double> energy_ratio;  // energy / baseline energy
    std::optional<double> runtime_ratio; // runtime / baseline runtime
    std::optional<double> estimate_j;    // runtime × P_const
    std::optional<double> error_percent; // (estimate − measured) / measured × 100
    // Against the baseline, beyond the runs' spread and the sensors' bound
    // (report/difference.hpp); absent for the baseline itself.
    std::optional<Difference> vs_baseline;
};

struct Comparison {
    std::size_t baseline = 0; // index into entries
    double p_const_w = 0;     // the baseline's mean energy / mean runtime
    std::vector<CompareEntry> entries;
};

// baseline: an entry's name or label, or its 1-based position; empty: the first.
// Fails (ErrorKind::config) when it names none of the groups, or there are none.
[[nodiscard]] Result<Comparison> compare_groups(const std::vector<RepeatSummary>& groups,
                                                std::string_view baseline);

[[nodiscard]] std::string format_comparison(const Comparison& c);
[[nodiscard]] nlohmann::json comparison_json(const Comparison& c);

} // namespace jp::report
