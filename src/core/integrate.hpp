// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Power-to-energy integration over actual timestamps.
#include <cstdint>
#include <span>

namespace jp {

struct TimedValue {
    std::int64_t t_ns = 0;
    double value = 0;
};

// Linear interpolation at t; holds the first/last value outside the samples.
// samples must be sorted by time and non-empty.
[[nodiscard]] double interpolate(std::span<const TimedValue> samples, std::int64_t t) noexcept;
// The same from the left: where a series steps at t (two readings at one
// time), the value before the step. A window ending at t integrates up to it.
[[nodiscard]] double interpolate_before(std::span<const TimedValue> samples,
                                        std::int64_t t) noexcept;

// Trapezoid integral of a power series (W) over [t0, t1] in joules, with the
// series interpolated at both edges. 0 for an empty series or t1 <= t0.
[[nodiscard]] double
trapezoid_joules(std::span<const TimedValue> samples, std::int64_t t0, std::int64_t t1) noexcept;

} // namespace jp
