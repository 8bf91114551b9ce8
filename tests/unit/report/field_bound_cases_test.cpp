// SPDX-License-Identifier: BSD-3-Clause
// The power field's bound (report/field_bound.hpp) in the cases its generated suites
// (field_bound_test.cpp) meet only by chance: a window that tiles the job, a read call's
// length, negative readings, time no reading covers, a job shorter than the window, and
// each backend's quantum.
#include "averaged_channel.hpp"
#include "report/field_bound.hpp"

#include <gtest/gtest.h>
#include <vector>

namespace jp::report {
namespace {

using test_field::averaged_channel;

constexpr std::int64_t k_ms = 1'000'000;
constexpr std::int64_t k_s = 1'000'000'000;

TEST(FieldBound, AReadingsWindowThatTilesTheJobLeavesOnlyItsQuantumAndLag) {
    // A 1 s mean read every second, the job from one reading's window start to another's end.
    const auto c = averaged_channel(k_s); // a BMC's mean over its last second
    std::vector<TimedValue> r;
    for (int i = 0; i <= 10; ++i) {
        r.push_back({i * k_s, 300.0});
    }
    const auto b = field_bound(knots_of(c, r), 2 * k_s, 8 * k_s,
                               FieldLimits{1.0, 1000, 0, k_s, true, 0, false});
    ASSERT_TRUE(b);
    EXPECT_NEAR(b->low, 1800 - 6, 1e-9); // 6 s × 300 W, less a watt's quantum over 6 s
    EXPECT_NEAR(b->high, 1800 + 6, 1e-9);
    EXPECT_EQ(b->dominant, "quantum");
    EXPECT_FALSE(b->assumed.windows);
    // Each reading up to 100 ms late, each its own: each window may miss 100 ms of its second
    // or overlap the next by as much, six times: ±600 J at 1 kW, still a guarantee.
    const auto own = field_bound(knots_of(c, r), 2 * k_s, 8 * k_s,
                                 FieldLimits{1.0, 1000, 100 * k_ms, k_s, true, 0, false});
    EXPECT_NEAR(own->low, 1800 - 6 - 600, 1e-6);
    EXPECT_NEAR(own->high, 1800 + 6 + 600, 1e-6);
    EXPECT_EQ(own->dominant, "power between readings");
    EXPECT_FALSE(own->assumed.windows);
    // Up to a whole second late (a BMC that updates its mean once a second): the guarantee
    // says nothing, so the windows are taken to follow one another, the whole series up to a
    // second late (±1 kJ), and the bound says so.
    const auto late = field_bound(knots_of(c, r), 2 * k_s, 8 * k_s,
                                  FieldLimits{1.0, 1000, k_s, k_s, true, 0, false});
    EXPECT_TRUE(late->assumed.windows);
    EXPECT_NEAR(late->low, 1800 - 6 - 1000, 1e-6);
    EXPECT_NEAR(late->high, 1800 + 6 + 1000, 1e-6);
    EXPECT_EQ(late->dominant, "edge staleness");
}

TEST(FieldBound, AReadingStampedAtItsCallsMiddleMayShowThePowerAtTheCallsEnd) {
    // 0 W until 1.01 s, then 500 W, read every 100 ms by a 40 ms call stamped at its middle
    // whose value is the power at its end (a BMC's answer): the reading stamped at 1.0 s says
    // 500 W, while over [0.5 s, 1.005 s] nothing was drawn.
    std::vector<TimedValue> r;
    for (std::int64_t k = 0; k <= 30; ++k) {
        const std::int64_t end = k * 100 * k_ms + 20 * k_ms;
        r.push_back({end - 20 * k_ms, end >= 1010 * k_ms ? 500.0 : 0.0});
    }
    FieldLimits l{1e-3, 1000, 0, 0, false, 250 * k_ms, false};
    const std::int64_t t0 = 500 * k_ms;
    const std::int64_t t1 = 1005 * k_ms;
    const auto at_stamp = field_bound(r, t0, t1, l);
    ASSERT_TRUE(at_stamp);
    EXPECT_GT(at_stamp->low, 1.0) << "each value taken at its stamp: 500 W from 1.0 s";
    l.read_ns = 40 * k_ms;
    const auto b = field_bound(r, t0, t1, l);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->low, 0.0);
    EXPECT_GT(b->terms.read, 0.0);
    // The terms make the width before it is cut at 0 (a quantum below a 0 W reading).
    EXPECT_NEAR(b->terms.total(), b->high - b->low, 0.01);
}

TEST(FieldBound, ANegativeReadingGivesNoBoundAndTheBoundStaysPossible) {
    const std::vector<TimedValue> r{{0, 100}, {k_s, -5}, {2 * k_s, 100}};
    EXPECT_FALSE(field_bound(r, 0, 2 * k_s, FieldLimits{0, 500, 0, 0, false, 0, false}));
    // Far from the window, with a read time too: the series' limits carry it.
    std::vector<TimedValue> far;
    for (std::int64_t t = 0; t <= 1000 * k_s; t += 100'000'000) {
        far.push_back({t, t == 1000 * k_s ? -5.0 : 100.0});
    }
    Channel power;
    power.quantity = Quantity::power;
    power.backend = "hwmon";
    Timing timed;
    timed.read_ns = 40'000'000;
    const auto limits = field_limits(power, timed, far, 100.0);
    EXPECT_TRUE(limits.negative);
    EXPECT_FALSE(field_bound(far, 0, k_s, limits)) << "a negative reading 999 s later";
    // Two 1 s means 25 s apart: what no window covers is anything up to P, never above P·T.
    const auto c = averaged_channel(k_s); // a BMC's mean over its last second
    const std::vector<TimedValue> sparse{{0, 100}, {25 * k_s, 100}, {50 * k_s, 100}};
    const auto b =
        field_bound(knots_of(c, sparse), 0, 50 * k_s, FieldLimits{0, 1400, 0, k_s, true, 0, false});
    ASSERT_TRUE(b);
    EXPECT_LE(b->high, 1400 * 50.0);
    EXPECT_GE(b->low, 0);
    // One reading: nothing between readings, no assumption about them either.
    const std::vector<TimedValue> one{{k_s, 100}};
    const auto single = field_bound(one, 0, 2 * k_s, FieldLimits{0, 500, 0, 0, false, 0, false});
    ASSERT_TRUE(single);
    EXPECT_FALSE(single->assumed.field);
    EXPECT_NEAR(single->high, 1000, 1e-9);
}

TEST(FieldBound, TimeNoReadingCoversIsAnythingTheDomainCanDraw) {
    const std::vector<TimedValue> r{{k_s, 100}, {2 * k_s, 100}};
    // Instantaneous, the job from 0 to 3 s: 1 s bracketed, 2 s unknown.
    const auto b = field_bound(r, 0, 3 * k_s, FieldLimits{0, 500, 0, 0, false, 0, false});
    ASSERT_TRUE(b);
    EXPECT_NEAR(b->low, 100, 1e-9);
    EXPECT_NEAR(b->high, 100 + 1000, 1e-9);
    EXPECT_EQ(b->dominant, "gap between readings");
    EXPECT_TRUE(b->assumed.field);
    // Readings 10 s apart with a 2.5 s gap rule: the span between them is a gap too.
    const std::vector<TimedValue> sparse{{0, 100}, {10 * k_s, 100}};
    const auto g =
        field_bound(sparse, 0, 10 * k_s, FieldLimits{0, 500, 0, 0, false, 2'500 * k_ms, false});
    EXPECT_NEAR(g->low, 0, 1e-9);
    EXPECT_NEAR(g->high, 5000, 1e-9);
}

TEST(FieldBound, AShortJobOnASecondsMeanIsNotMeasurable) {
    // 200 ms of a node read as 1 s means: the readings cannot place its energy.
    const auto c = averaged_channel(k_s); // a BMC's mean over its last second
    std::vector<TimedValue> r;
    for (int i = 0; i <= 5; ++i) {
        r.push_back({i * k_s, 400.0});
    }
    const auto b = field_bound(knots_of(c, r), 2'400 * k_ms, 2'600 * k_ms,
                               FieldLimits{1.0, 1000, 0, k_s, true, 0, false});
    ASSERT_TRUE(b);
    EXPECT_GT(b->half_width(), 80.0); // the value is 80 J
    EXPECT_EQ(b->dominant, "power between readings");
}

TEST(FieldBound, QuantaByBackend) {
    Channel c;
    c.backend = "ipmi";
    EXPECT_EQ(field_quantum(c), 1.0);
    c.backend = "hwmon";
    EXPECT_EQ(field_quantum(c), 1e-6);
    c.backend = "nvml";
    EXPECT_EQ(field_quantum(c), 1e-3);
    c.backend = "jouleprofd";
    c.source = "redfish http://bmc/Chassis/1/Power";
    EXPECT_EQ(field_quantum(c), 1.0);
}

} // namespace
} // namespace jp::report
