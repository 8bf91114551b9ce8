// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Readings as a trace gives them to a report (trace::ChannelSamples), for the tests of
// report/anchored.hpp and report/field_shape.hpp.
#include "report/field_shape.hpp"
#include "trace/reader.hpp"

#include <utility>
#include <vector>

namespace jp::test {

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

} // namespace jp::test
