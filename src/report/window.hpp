// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The samples of one run loaded once, and the figures of any window of it:
// the whole run, a phase, or the union of several phases.
#include "report/field_bound.hpp"
#include "report/series.hpp"
#include "report/summary.hpp"

#include <span>
#include <utility>

namespace jp::report {

struct RunData {
    const std::vector<Channel>* channels = nullptr;
    // Per channel, by time: the knots (report/timing.hpp) of its readings.
    std::vector<std::vector<TimedValue>> series;
    // Power and utilisation channels: the trapezoid integral from the first
    // sample to each sample (J, or %·s), so any window's integral is O(log n).
    std::vector<std::vector<double>> integral;
    std::vector<Timing> timing; // per channel: reading and update periods, resolution
    // Per channel: where its counter values are estimates (jumps), from the flags.
    std::vector<std::vector<EstimatedSpan>> estimated;
    // Per channel: an anchored counter shaped by its profile between reads.
    std::vector<bool> profiled;
    NodeFacts facts;
    std::optional<std::size_t> node_channel; // the measured node, if any
    std::int64_t t0 = 0;                     // the run's window
    std::int64_t t1 = 0;
};

[[nodiscard]] Result<RunData> load_run(trace::Reader& reader, const trace::RunInfo& run);

// Channel i over [a, b]: joules for energy (counter difference) and power
// channels (trapezoid rule), %·s for utilisation; values held outside the samples.
[[nodiscard]] double
integral_of(const RunData& data, std::size_t i, std::int64_t a, std::int64_t b);

// The limits of energy channel i's counter (report/bound.hpp) as the bounds of its
// figures take them: the most it can draw is judged from its highest power over the run.
[[nodiscard]] CounterLimits counter_limits(const RunData& data, std::size_t i);

// The limits of measured power channel i's readings (report/field_bound.hpp) as the bounds
// of its figures take them: the most it can draw never below its highest reading in the run.
[[nodiscard]] FieldLimits field_limits_of(const RunData& data, std::size_t i);

// The samples of channel i from the last at or before a to the first at or after b.
[[nodiscard]] std::span<const TimedValue>
samples_around(const RunData& data, std::size_t i, std::int64_t a, std::int64_t b);

// Energy, average and peak power of the node, each part and the rest over [t0, t1]; the
// node's peak range unless the caller makes it another way (a run's, from its distribution).
[[nodiscard]] Figures
figures_of(const RunData& data, std::int64_t t0, std::int64_t t1, bool node_peak_range = true);

// Figures over a union of windows (sorted, not overlapping): sums of energy and
// runtime, highest peak, time-weighted utilisation.
[[nodiscard]] Figures figures_of(const RunData& data,
                                 std::span<const std::pair<std::int64_t, std::int64_t>> windows);

// The node's power on a regular grid over [t0, t1] at the coarsest resolution
// of the channels it is made of (grid_of).
[[nodiscard]] GridSeries node_grid(const RunData& data, std::int64_t t0, std::int64_t t1);

// How the node figure was obtained, in words.
[[nodiscard]] std::string node_basis(const RunData& data);

// Notes on channels whose power is coarser than their readings (timing_note).
[[nodiscard]] std::vector<std::string> timing_notes(const RunData& data);

} // namespace jp::report
