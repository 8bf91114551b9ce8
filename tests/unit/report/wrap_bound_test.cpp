// SPDX-License-Identifier: BSD-3-Clause
// A counter that wraps, read too seldom to know how often it did: the sampler's tracker
// unwraps once, so a monitor stalled for longer than the counter takes to wrap at its most
// power undercounts by whole ranges. The report cannot know how many; it widens the bound over
// that span ("ambiguous wrap") so the truth stays inside it.
#include "core/counter.hpp"
#include "report/bound.hpp"
#include "report/timing.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <vector>

namespace jp::report {
namespace {

constexpr std::int64_t k_ms = 1'000'000;
constexpr std::int64_t k_s = 1'000'000'000;
constexpr double k_range = 1000; // the counter wraps every 1 kJ
constexpr double k_start = 400;  // its raw value at 0

Channel zone() {
    Channel c;
    c.name = "package-0";
    c.quantity = Quantity::energy;
    c.backend = "powercap";
    c.limit_watts = 100; // so the bound takes 200 W: a wrap takes at least 5 s
    c.update_ns = 1 * k_ms;
    c.wrap_joules = k_range;
    return c;
}

// 50 W, then 150 W from 2 s to 14 s, then 50 W: the true energy since 0.
double truth(std::int64_t t) {
    const double s = static_cast<double>(t) * 1e-9;
    return 50 * s + 100 * std::clamp(s - 2, 0.0, 12.0);
}

// What the sampler writes: its tracker's totals at each reading.
std::vector<TimedValue> record(const std::vector<std::int64_t>& times) {
    CounterTracker tracker{k_range, 200, 1 * k_ms};
    std::vector<TimedValue> out;
    for (const auto t : times) {
        const double raw = std::fmod(k_start + truth(t), k_range);
        if (out.empty()) {
            tracker.reset(raw, t);
            out.push_back({t, 0});
        } else {
            tracker.update(raw, t);
            out.push_back({t, tracker.total()});
        }
    }
    return out;
}

Bound bound_of(const std::vector<TimedValue>& points, std::int64_t t0, std::int64_t t1) {
    const auto c = zone();
    const auto spans = with_ambiguous_wraps({}, points, c);
    const auto knots = knots_of(c, points);
    const auto limits = limits_of(c, timing_of(c, points), knots, std::nullopt, spans);
    return counter_bound(knots, t0, t1, limits, spans).value_or(Bound{});
}

TEST(WrapBound, AMonitorStalledLongerThanAWrapTakesWidensTheBoundOverTheStall) {
    // Read every 100 ms, except for 12 s (from 2 s to 14 s) when the monitor was stalled:
    // 1.8 kJ passed, the counter wrapped twice, and the tracker saw one wrap's worth.
    std::vector<std::int64_t> times;
    for (std::int64_t t = 0; t <= 20 * k_s; t += 100 * k_ms) {
        if (t <= 2 * k_s || t >= 14 * k_s) {
            times.push_back(t);
        }
    }
    const auto points = record(times);
    const double figure = points.back().value;
    const double e = truth(20 * k_s);
    EXPECT_NEAR(e - figure, k_range, 1e-6) << "the tracker unwrapped once";
    const auto spans = with_ambiguous_wraps({}, points, zone());
    ASSERT_EQ(spans.size(), 1U);
    EXPECT_EQ(spans[0].from_ns, 2 * k_s);
    EXPECT_EQ(spans[0].to_ns, 14 * k_s);
    EXPECT_TRUE(spans[0].wrap);
    const auto b = bound_of(points, 0, 20 * k_s);
    EXPECT_LE(b.low, e);
    EXPECT_GE(b.high, e);
    EXPECT_EQ(b.dominant, "ambiguous wrap");
    EXPECT_NEAR(b.terms.wrap, 200 * 12.0, 1e-6);
    // A window that does not reach the stall keeps the counter's own bound.
    const auto before = bound_of(points, 0, 1'500 * k_ms);
    EXPECT_LE(before.low, truth(1'500 * k_ms));
    EXPECT_GE(before.high, truth(1'500 * k_ms));
    EXPECT_EQ(before.terms.wrap, 0);
    EXPECT_LT(before.half_width(), 1.0);
}

TEST(WrapBound, ReadingsCloserThanAWrapTakesAreNoSpan) {
    std::vector<std::int64_t> times;
    for (std::int64_t t = 0; t <= 20 * k_s; t += 4'900 * k_ms) { // under 5 s apart
        times.push_back(t);
    }
    const auto points = record(times);
    EXPECT_NEAR(points.back().value, truth(times.back()), 1e-6);
    EXPECT_TRUE(with_ambiguous_wraps({}, points, zone()).empty());
    auto c = zone();
    c.wrap_joules.reset(); // a counter that never wraps (NVML's 64 bits): no span however long
    std::vector<TimedValue> sparse{{0, 0}, {60 * k_s, 3000}};
    EXPECT_TRUE(with_ambiguous_wraps({}, sparse, c).empty());
}

TEST(WrapBound, AWrapSpanMergesWithAJumpsSpan) {
    const std::vector<EstimatedSpan> jumps{{10 * k_s, 12 * k_s}, {30 * k_s, 31 * k_s}};
    const std::vector<TimedValue> points{
        {0, 0}, {11 * k_s, 100}, {20 * k_s, 200}, {30 * k_s, 300}, {40 * k_s, 400}};
    const auto spans = with_ambiguous_wraps(jumps, points, zone());
    // 0-11 (a wrap span) joins the jump at 10-12; 11-20 is a wrap span of its own, joined;
    // 20-30 and 30-40 (wraps) join the jump at 30-31: one span from 0 to 40.
    ASSERT_EQ(spans.size(), 1U);
    EXPECT_EQ(spans[0].from_ns, 0);
    EXPECT_EQ(spans[0].to_ns, 40 * k_s);
}

} // namespace
} // namespace jp::report
