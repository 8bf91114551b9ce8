// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Readings as a trace gives them to a report (trace::ChannelSamples), for the tests of
// report/anchored.hpp and report/field_shape.hpp.
#include "report/field_shape.hpp"
#include "trace/reader.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace jp::test {

// The units the shaping's tests count in.
namespace shape_units {
inline constexpr std::int64_t k_ms = 1'000'000;
inline constexpr std::int64_t k_sec = 1'000'000'000;
inline constexpr std::int64_t k_gap = 200 * k_ms; // two of the instant field's 100 ms updates
} // namespace shape_units

// The points, none flagged.
inline trace::ChannelSamples samples(std::vector<TimedValue> points) {
    trace::ChannelSamples s;
    s.flags.assign(points.size(), 0);
    s.points = std::move(points);
    return s;
}

// Value at t by linear interpolation of sorted points (held outside them).
inline double value_at(const std::vector<TimedValue>& p, std::int64_t t) {
    return report::interpolated_at(p, t);
}

// The energy over [a, b] of cumulative joules (interpolated at both ends).
inline double energy(const std::vector<TimedValue>& cumulative, std::int64_t a, std::int64_t b) {
    return value_at(cumulative, b) - value_at(cumulative, a);
}

} // namespace jp::test
