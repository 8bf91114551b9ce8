// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How finely a channel's power can be known. A counter read faster than it
// updates shows the same value twice and then a double step: power taken
// between such readings swings between zero and a multiple of the truth (a GPU
// at a constant 300 W read every 10 ms with a 20 ms counter shows ~1 kW peaks).
// So power is derived (1) between the readings at which the value changed and
// (2) over spans no shorter than `resolution`, where the error from when within
// its update period a value was taken stays under 10 %.
#include "core/channel.hpp"
#include "core/integrate.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace jp::report {

// A span this many times the uncertainty in when a value was taken keeps the
// worst-case error of power over the span within 2/k_span_factor (10 %).
inline constexpr std::int64_t k_span_factor = 20;

struct Timing {
    std::int64_t sample_ns = 0; // median spacing of the readings; 0 with fewer than two
    // How often the source changes its value: learned from readings that repeat
    // (update_learned), else the backend's own figure (RAPL ~1 ms), else 0: it
    // changed at every reading, so it updates at least as often as it was read.
    std::int64_t update_ns = 0;
    bool update_learned = false;
    std::int64_t resolution_ns = 0; // shortest span power is derived over
    // The longest call that read it in the run, where its values are stamped at their
    // call's middle (the trace's read_time table; 0: not recorded, or the source's own times).
    std::int64_t read_ns = 0;
    // True when the readings were taken faster than the source updates.
    [[nodiscard]] bool oversampled() const noexcept { return update_ns > sample_ns; }
};

// The shortest span over which power of a channel read every sample_ns from a
// source that updates every update_ns (0: unknown, faster than read) is known
// within 10 %.
[[nodiscard]] std::int64_t
resolution_for(Quantity q, std::int64_t sample_ns, std::int64_t update_ns) noexcept;

// The timing of a channel's readings (sorted by time). With their trace flags
// (one per reading; empty: all regular), only the sampler's regular readings
// show how often the source changes: an edge or phase read taken just after a
// regular one repeats its value whatever the source's period, so it is no
// evidence of a slow source.
[[nodiscard]] Timing timing_of(const Channel& c,
                               std::span<const TimedValue> readings,
                               std::span<const std::uint8_t> flags = {});

// The readings power and energy are derived from: for energy counters, the
// first and last readings and each reading where the value changed; for a
// mean-since-previous channel (the CPU estimate), the step it stands for, each
// reading held over the interval before it (so the first, which covers the
// time before the run, counts for nothing); other channels keep every reading.
// With the readings' trace flags (one each, or none), an energy counter's
// estimates (jump-flagged readings) are not knots either, the last reading
// aside: power over a jump's span is its average from the readings around it.
[[nodiscard]] std::vector<TimedValue> knots_of(const Channel& c,
                                               std::vector<TimedValue> readings,
                                               std::span<const std::uint8_t> flags = {});

// Whether readings (by their trace flags) were shaped from an anchored counter's profile
// (trace::k_flag_profiled, report/anchored.hpp).
[[nodiscard]] bool shaped_by_profile(std::span<const std::uint8_t> flags) noexcept;

// "gpu0: read every 10 ms, but its value changes only every ~20 ms (learned from
// its readings): its power is derived over 400 ms spans"; empty when the
// readings resolve the source's own updates.
[[nodiscard]] std::string timing_note(const Channel& c, const Timing& t);

} // namespace jp::report
