// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where the node's power lay over a run, window by window, from the sensors' own
// bounds on its energy in each window (report/bound.hpp): the shaded band of the
// HTML profile. Windows end where the node's counter (or its first counter part's) was
// read, so an edge's error is the counter's own (quantum and staleness), not the
// gap between two readings; a node that is a power field is cut evenly.
#include "report/distribution.hpp"

#include <optional>
#include <vector>

namespace jp::report {

struct RunData; // report/window.hpp

struct BandPoint {
    double x = 0;          // the window's middle as a fraction of the run, 0..1
    double low_w = 0;      // the least mean power over the window its bound allows
    double high_w = 0;     // the most
    Assumptions assumed{}; // what the window's bound rests on beyond the sensors' limits
};

// About `windows` windows over the run (fewer where the counter was read less often,
// never shorter than its resolution); empty where the node's energy has no bound (an
// estimate, a rest-of-node model, a counter estimated over a jump). A measured power field
// (a BMC's node reading) is bounded window by window (report/field_bound.hpp).
[[nodiscard]] std::vector<BandPoint> node_power_band(const RunData& data, int windows);

// The node's peak on `grid` (its power per window, report/series.hpp) is the highest window's
// mean; the truth's highest window lies between the highest of the windows' lower ends and
// the highest of their upper ends. Absent where the node's energy has no bound (as above).
[[nodiscard]] std::optional<PowerRange> node_peak_bound(const RunData& data,
                                                        const GridSeries& grid);
// The same for the rest of the node's distribution on grid g, set in `out` where the node's
// energy has a bound: the peak, the 1 s and 60 s moving peaks (a window of several steps
// bounded at its two cuts; with a power field, its windows' ends added) and the
// percentiles (a percentile grows with each window's
// value, so the truth's lies between the percentiles of the windows' lower ends and of
// their upper ends, time-weighted as the figure is).
void add_distribution_bounds(const RunData& d, const GridSeries& g, Distribution& out);
// A part's peak on its own grid: channel i's energy counter bounded as the node's are;
// absent for a power reading or a counter estimated over a jump.
[[nodiscard]] std::optional<PowerRange>
counter_peak_bound(const RunData& d, std::size_t i, const GridSeries& g);

} // namespace jp::report
