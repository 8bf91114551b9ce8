// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How power is distributed over a run: the peak at sample resolution and over
// 1 s and 60 s windows, time-weighted percentiles, time above a threshold,
// against the node's rated power.
#include "report/assumptions.hpp"
#include "report/series.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace jp::report {

// Where the sensors' bounds put a power figure (report/power_band.hpp).
struct PowerRange {
    double low_w = 0;
    double high_w = 0;
    Assumptions assumed{}; // what its windows' bounds rest on
};

struct Distribution {
    double mean_w = 0;
    double peak_w = 0; // highest window of the series (sample resolution)
    // The highest true mean over the same windows, from each window's energy bound; absent
    // where the node's energy has none.
    std::optional<PowerRange> peak_bound;
    std::optional<double> peak_1s_w;  // highest 1 s moving mean; absent if not resolvable
    std::optional<double> peak_60s_w; // highest 60 s moving mean; absent for shorter runs
    double p50_w = 0;
    double p95_w = 0;
    double p99_w = 0;
    // Where the sensors' bounds put the 1 s and 60 s peaks and the percentiles (as peak_bound;
    // report/power_band.hpp).
    std::optional<PowerRange> peak_1s_bound;
    std::optional<PowerRange> peak_60s_bound;
    std::optional<PowerRange> p50_bound;
    std::optional<PowerRange> p95_bound;
    std::optional<PowerRange> p99_bound;
    std::optional<double> threshold_w;
    double seconds_above = 0; // time with power above threshold_w
};

// Empty series give a zero distribution.
[[nodiscard]] Distribution power_distribution(const GridSeries& series,
                                              std::optional<double> threshold_w = std::nullopt);

// The grid steps of a `seconds` moving window (nullopt where the grid is coarser or shorter).
[[nodiscard]] std::optional<std::size_t> moving_steps(const GridSeries& g, double seconds);
// Time-weighted percentile of (watts, seconds) sorted by watts: the lowest power at or below
// which a share q of `total` seconds is spent.
[[nodiscard]] double
percentile(const std::vector<std::pair<double, double>>& sorted, double total, double q);

struct Rating {
    double watts = 0;
    std::string source; // "config" or "sum of part limits (cpu0.package 165 W, gpu0 700 W)"
};

// The node's rated power: [node] rated_watts recorded in the trace, else the
// sum of the power limits the counted parts report; nullopt when neither.
[[nodiscard]] std::optional<Rating> rated_power(const trace::Reader& reader);

} // namespace jp::report
