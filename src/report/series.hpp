// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Power over time from a trace: any channel, or the whole node, as mean power
// per window of a regular grid. Used for peaks, distributions and plots. Energy
// counters are read through their knots (report/timing.hpp) and grids are no
// finer than the channels' resolution, so a counter read faster than it
// updates never shows phantom peaks.
#include "report/timing.hpp"
#include "trace/reader.hpp"

#include <optional>
#include <span>
#include <vector>

namespace jp::report {

// Mean power (W) of a channel over [a, b]: energy channels from the cumulative
// counter, power channels by the trapezoid rule. 0 when b <= a or no samples.
[[nodiscard]] double
window_watts(const Channel& c, std::span<const TimedValue> p, std::int64_t a, std::int64_t b);

// watts[i] is the mean power over [t0 + i·step, min(t0 + (i+1)·step, t1)]; the
// last window may be shorter (it is dropped when under half a step, unless it
// is the only one).
struct GridSeries {
    std::int64_t t0 = 0;
    std::int64_t t1 = 0;
    std::int64_t step_ns = 0;
    std::vector<double> watts;
    [[nodiscard]] double seconds_of(std::size_t i) const noexcept;
};

// A grid is never finer than the readings behind it: at most k_windows_per_knot
// windows per knot (plus a few), and at most k_max_grid_windows in all (a day at
// 10 ms). A coarser step is used when `step` would make more; an honest trace never
// needs it (a counter's knots are at least one per update, its resolution at least
// one update), a crafted one with readings a nanosecond apart would otherwise ask
// for billions of windows.
inline constexpr std::int64_t k_windows_per_knot = 4;
inline constexpr std::int64_t k_max_grid_windows = std::int64_t{1} << 23;
[[nodiscard]] std::int64_t
bounded_step(std::int64_t step, std::int64_t t0, std::int64_t t1, std::size_t knots) noexcept;

// One channel's mean power per window, in one pass over its knots (O(n + windows)),
// with the step bounded by bounded_step().
[[nodiscard]] GridSeries channel_grid(const Channel& channel,
                                      std::span<const TimedValue> points,
                                      std::int64_t t0,
                                      std::int64_t t1,
                                      std::int64_t step);

struct ChannelData {
    const Channel* channel = nullptr;
    std::span<const TimedValue> knots; // knots_of() the channel's readings
    std::int64_t resolution_ns = 0;    // timing_of(...).resolution_ns
};

// The channels as ChannelData: their knots (kept in storage) and resolution.
struct PowerInputs {
    std::vector<std::vector<TimedValue>> knots;
    std::vector<Timing> timing;
    std::vector<ChannelData> channels;
};
[[nodiscard]] PowerInputs power_inputs(std::span<const Channel* const> channels,
                                       std::vector<trace::ChannelSamples> readings);

// The sum of the channels' mean power per window plus offset_w. step 0 means
// the coarsest resolution among the channels: the node's power is no finer
// than its coarsest part. The step is bounded by bounded_step() with the most
// knots of any channel. Empty when there is no usable step.
[[nodiscard]] GridSeries grid_of(std::span<const ChannelData> channels,
                                 std::int64_t t0,
                                 std::int64_t t1,
                                 double offset_w,
                                 std::int64_t step = 0);

// The node's power over a run: its measured node channel, or the counted parts
// plus the configured rest-of-node power (as in summarize_run).
[[nodiscard]] Result<GridSeries>
node_power_series(trace::Reader& reader, const trace::RunInfo& run, std::int64_t step = 0);

// The run's [start, end]: its end edge, or its last sample when the monitor died.
[[nodiscard]] Result<std::pair<std::int64_t, std::int64_t>> run_window(trace::Reader& reader,
                                                                       const trace::RunInfo& run);

} // namespace jp::report
