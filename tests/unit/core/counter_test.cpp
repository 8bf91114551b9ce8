// SPDX-License-Identifier: BSD-3-Clause
#include "core/counter.hpp"

#include <gtest/gtest.h>
#include <limits>

namespace jp {
namespace {

constexpr std::int64_t k_s = 1'000'000'000;

TEST(CounterTracker, AccumulatesFromReset) {
    CounterTracker c{std::nullopt, 5000};
    c.reset(100.0, 0);
    EXPECT_DOUBLE_EQ(c.update(150.0, k_s).delta_joules, 50.0);
    EXPECT_DOUBLE_EQ(c.update(250.0, 2 * k_s).delta_joules, 100.0);
    EXPECT_DOUBLE_EQ(c.total(), 150.0);
}

TEST(CounterTracker, UnwrapsWithRange) {
    // RAPL: range 262143.328850 J; counter passes the top between readings.
    const double range = 262143.328850;
    CounterTracker c{range, 5000};
    c.reset(range - 10.0, 0);
    const auto step = c.update(30.0, k_s);
    EXPECT_TRUE(step.wrapped);
    EXPECT_FALSE(step.jump);
    EXPECT_NEAR(step.delta_joules, 40.0, 1e-6);
}

TEST(CounterTracker, BackwardsWithoutRangeIsAJumpHeldAtLastPower) {
    CounterTracker c{std::nullopt, 5000};
    c.reset(1000.0, 0);
    c.update(1200.0, k_s); // 200 W
    const auto step = c.update(5.0, 2 * k_s);
    EXPECT_TRUE(step.jump);
    EXPECT_NEAR(step.delta_joules, 200.0, 1e-9);
    EXPECT_NEAR(c.total(), 400.0, 1e-9);
}

TEST(CounterTracker, ImpossibleForwardJumpIsFlagged) {
    CounterTracker c{std::nullopt, 5000};
    c.reset(0.0, 0);
    c.update(100.0, k_s);                       // 100 W
    const auto step = c.update(4.0e9, 2 * k_s); // 4 GJ in a second
    EXPECT_TRUE(step.jump);
    EXPECT_NEAR(step.delta_joules, 100.0, 1e-9);
    // The next reading continues from the new raw value.
    EXPECT_NEAR(c.update(4.0e9 + 100.0, 3 * k_s).delta_joules, 100.0, 1e-6);
}

TEST(CounterTracker, ShortWindowWithOneQuantumIsNotAJump) {
    CounterTracker c{std::nullopt, 5000};
    c.reset(0.0, 0);
    // 1 µs apart, but a 0.2 J quantum (200 W over 1 ms) landed in between.
    EXPECT_FALSE(c.update(0.2, 1000).jump);
}

TEST(CounterTracker, StuckCounterFlaggedOnce) {
    CounterTracker c{std::nullopt, 5000};
    c.reset(7.0, 0);
    EXPECT_FALSE(c.update(7.0, 2 * k_s).stuck);
    EXPECT_TRUE(c.update(7.0, 6 * k_s).stuck);
    EXPECT_FALSE(c.update(7.0, 9 * k_s).stuck);
    EXPECT_DOUBLE_EQ(c.total(), 0.0);
}

TEST(CounterTracker, OutOfOrderReadingIgnored) {
    CounterTracker c{std::nullopt, 5000};
    c.reset(0.0, k_s);
    EXPECT_DOUBLE_EQ(c.update(10.0, k_s).delta_joules, 0.0);
    EXPECT_DOUBLE_EQ(c.total(), 0.0);
}

TEST(CounterTracker, ACounterThatDropsAndReturnsAddsNothingTwice) {
    // 100 W; at 2 s one torn read shows 10 J, at 3 s the counter is back.
    CounterTracker c{262143.328850, 5000};
    c.reset(1000.0, 0);
    c.update(1100.0, k_s);
    const auto glitch = c.update(10.0, 2 * k_s);
    EXPECT_TRUE(glitch.jump);
    const auto back = c.update(1300.0, 3 * k_s);
    EXPECT_TRUE(back.returned);
    EXPECT_FALSE(back.jump);
    EXPECT_NEAR(c.total(), 300.0, 1e-9) << "the true 300 J, not 300 J plus the drop";
    EXPECT_NEAR(c.update(1400.0, 4 * k_s).delta_joules, 100.0, 1e-9);
}

TEST(CounterTracker, ACounterResetGoesOnFromItsNewValue) {
    // A driver reload resets the counter to 0: the next readings are plausible
    // only from the new value, and count from there.
    CounterTracker c{std::nullopt, 5000};
    c.reset(50'000.0, 0);
    c.update(50'100.0, k_s);
    EXPECT_TRUE(c.update(0.0, 2 * k_s).jump);
    const auto next = c.update(100.0, 3 * k_s);
    EXPECT_FALSE(next.jump);
    EXPECT_FALSE(next.returned);
    EXPECT_NEAR(next.delta_joules, 100.0, 1e-9);
    EXPECT_NEAR(c.total(), 300.0, 1e-9);
}

TEST(CounterTracker, ANonFiniteReadingIsAJumpAndTheCounterReturns) {
    CounterTracker c{std::nullopt, 600, 1'000'000};
    c.reset(1000.0, 0);
    c.update(1100.0, k_s);
    EXPECT_TRUE(c.update(std::numeric_limits<double>::quiet_NaN(), 3 * k_s / 2).jump);
    EXPECT_TRUE(c.update(std::numeric_limits<double>::infinity(), 2 * k_s).jump);
    const auto back = c.update(1250.0, 5 * k_s / 2);
    EXPECT_TRUE(back.returned);
    EXPECT_NEAR(c.total(), 250.0, 1e-9) << "finite, and the counter's";
}

TEST(CounterTracker, ANewRunForgetsThePowerOfTheLast) {
    CounterTracker c{std::nullopt, 600, 1'000'000};
    c.reset(0.0, 0);
    c.update(250.0, k_s); // 250 W
    c.reset(5000.0, 10 * k_s);
    const auto j = c.update(-1.0, 11 * k_s);
    EXPECT_TRUE(j.jump);
    EXPECT_DOUBLE_EQ(j.delta_joules, 0.0) << "no power known yet in this run";
}

TEST(CounterTracker, ThePlausibilityBoundIsTheChannelsOwnLimit) {
    Channel pkg;
    pkg.domain = Domain::cpu_package;
    EXPECT_DOUBLE_EQ(plausible_max_watts(pkg), 5000.0) << "no limit known";
    pkg.limit_watts = 125;
    EXPECT_DOUBLE_EQ(plausible_max_watts(pkg), 250.0);
    pkg.max_watts = 241; // a laptop's or desktop's short-term limit above long-term
    EXPECT_DOUBLE_EQ(plausible_max_watts(pkg), 482.0);
    Channel node;
    node.domain = Domain::node;
    EXPECT_DOUBLE_EQ(plausible_max_watts(node), 100'000.0);
    // A 125 W package gaining 1 kJ in one second is impossible; under the
    // fixed 5 kW bound it was not.
    pkg.max_watts.reset();
    CounterTracker c{std::nullopt, plausible_max_watts(pkg)};
    c.reset(0, 0);
    c.update(100.0, k_s);
    EXPECT_TRUE(c.update(1100.0, 2 * k_s).jump);
}

} // namespace
} // namespace jp
