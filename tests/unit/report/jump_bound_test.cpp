// SPDX-License-Identifier: BSD-3-Clause
// Counters that misbehave, from the sampler's tracker to the report's bound: a
// short upward glitch, a value that drops and comes back, a reset. The tracker
// decides by what the counter does afterwards; the readings it had to estimate
// are flagged, and the report widens the bound over their span ("counter
// jump") so the truth stays inside it, while the figure stays near the truth.
#include "core/counter.hpp"
#include "report/bound.hpp"
#include "report/series.hpp"
#include "report/timing.hpp"
#include "trace/types.hpp"

#include <algorithm>
#include <functional>
#include <gtest/gtest.h>
#include <vector>

namespace jp::report {
namespace {

constexpr std::int64_t k_ms = 1'000'000;
constexpr std::int64_t k_s = 1'000'000'000;
constexpr double k_watts = 250;     // the zone's true, constant power
constexpr double k_max_watts = 600; // twice its stated 300 W limit
constexpr double k_start_j = 5000;  // the raw counter at 0

// What the sampler writes to the trace: the tracker's totals and their flags.
struct Recorded {
    std::vector<TimedValue> points;
    std::vector<std::uint8_t> flags;
    std::size_t jumps = 0;
    std::size_t returns = 0;
    std::size_t resets = 0;
};

// Readings at `times` (the first 0) of a RAPL-like counter (1 ms updates,
// RAPL's wrap range) whose raw value is raw(t_ns).
Recorded record_at(const std::vector<std::int64_t>& times,
                   const std::function<double(std::int64_t)>& raw) {
    CounterTracker tracker{262143.328850, k_max_watts, 1 * k_ms};
    Recorded r;
    for (const auto t : times) {
        if (t == 0) {
            tracker.reset(raw(t), t);
            r.points.push_back({t, 0});
            r.flags.push_back(0);
            continue;
        }
        const auto step = tracker.update(raw(t), t);
        r.jumps += step.jump ? 1 : 0;
        r.returns += step.returned ? 1 : 0;
        r.resets += step.settled ? 1 : 0;
        r.points.push_back({t, tracker.total()});
        r.flags.push_back(step.jump || step.provisional ? trace::k_flag_jump : 0);
    }
    return r;
}

// Readings every 10 ms for `seconds`.
Recorded record(double seconds, const std::function<double(std::int64_t)>& raw) {
    std::vector<std::int64_t> times;
    for (std::int64_t t = 0; t <= static_cast<std::int64_t>(seconds * 1e9); t += 10 * k_ms) {
        times.push_back(t);
    }
    return record_at(times, raw);
}

double truth(std::int64_t t) {
    return k_watts * static_cast<double>(t) * 1e-9;
}

double true_raw(std::int64_t t) {
    return k_start_j + truth(t);
}

Channel zone() {
    Channel c;
    c.name = "package-0";
    c.quantity = Quantity::energy;
    c.backend = "powercap";
    c.limit_watts = 300;
    c.update_ns = 1 * k_ms;
    return c;
}

// The report's bound over [t0, t1] from what was recorded.
Bound bound_of(const Recorded& r, std::int64_t t0, std::int64_t t1) {
    const auto c = zone();
    const auto spans = estimated_spans(r.points, r.flags);
    const auto knots = knots_of(c, r.points, r.flags);
    const auto limits = limits_of(c, timing_of(c, r.points, r.flags), knots, std::nullopt, spans);
    const auto b = counter_bound(knots, t0, t1, limits, spans);
    EXPECT_TRUE(b.has_value());
    return b.value_or(Bound{});
}

// The truth inside the bound over the whole run and over windows whose edges
// fall before, inside and after the jump (a phase's edges can be anywhere).
void expect_truth_inside(const Recorded& r, std::int64_t end) {
    for (const auto t0 : {std::int64_t{0}, 995 * k_ms, 1020 * k_ms, 1500 * k_ms}) {
        for (const auto t1 : {1003 * k_ms, 1045 * k_ms, 1300 * k_ms, end}) {
            if (t1 <= t0) {
                continue;
            }
            const auto b = bound_of(r, t0, t1);
            const double e = truth(t1) - truth(t0);
            EXPECT_LE(b.low, e + 1e-9) << t0 << ".." << t1;
            EXPECT_GE(b.high, e - 1e-9) << t0 << ".." << t1;
        }
    }
}

double peak_w(const Recorded& r) {
    const auto c = zone();
    const auto t = timing_of(c, r.points, r.flags);
    const auto knots = knots_of(c, r.points, r.flags);
    const auto g =
        channel_grid(c, knots, r.points.front().t_ns, r.points.back().t_ns, t.resolution_ns);
    return *std::ranges::max_element(g.watts);
}

// The case: +150 J for 50 ms on a 300 W zone was taken as a reset
// (+21 % energy, a 7.6 kW peak).
TEST(JumpBound, AShortUpwardGlitchIsNeitherCountedNorAPeak) {
    const auto r = record(2, [](std::int64_t t) {
        return true_raw(t) + (t >= 1000 * k_ms && t < 1050 * k_ms ? 150.0 : 0.0);
    });
    EXPECT_EQ(r.jumps, 1U);
    EXPECT_EQ(r.returns, 1U);
    EXPECT_EQ(r.resets, 0U);
    EXPECT_NEAR(r.points.back().value, truth(2 * k_s), 1e-6) << "the glitch adds nothing";
    EXPECT_LE(peak_w(r), k_watts * 1.1);
    expect_truth_inside(r, 2 * k_s);
    const auto whole = bound_of(r, 0, 2 * k_s);
    EXPECT_EQ(whole.dominant, "counter jump");
    EXPECT_LE(whole.high - whole.low, k_max_watts * 0.08) << "only the glitch's span is unsure";
}

// A value that drops (a torn read, a counter that reads 0 for a while) and
// comes back: the time between is counted once, not lost and not doubled.
TEST(JumpBound, ACounterThatDropsAndReturnsKeepsTheTimeBetween) {
    for (const double dropped_to : {0.0, 17.0}) {
        const auto r = record(3, [&](std::int64_t t) {
            return t >= 1000 * k_ms && t < 1300 * k_ms ? dropped_to : true_raw(t);
        });
        EXPECT_EQ(r.returns, 1U) << dropped_to;
        EXPECT_NEAR(r.points.back().value, truth(3 * k_s), 1e-6) << dropped_to;
        EXPECT_LE(peak_w(r), k_watts * 1.1) << dropped_to;
        expect_truth_inside(r, 3 * k_s);
    }
}

// Dropped to a series that goes on counting (another register's value) and
// then back: both fit the plausibility bound, the one at the power before wins.
TEST(JumpBound, ADropToASeriesThatKeepsCountingStillReturns) {
    const auto r = record(3, [](std::int64_t t) {
        return t >= 1000 * k_ms && t < 1300 * k_ms ? 40.0 + truth(t) : true_raw(t);
    });
    EXPECT_EQ(r.returns, 1U);
    EXPECT_NEAR(r.points.back().value, truth(3 * k_s), 1e-6);
    expect_truth_inside(r, 3 * k_s);
}

// A reset (a driver reload): the counter goes on from 0 and never returns. After
// the hold it is taken as a reset; its jump is an estimate inside a wider bound.
TEST(JumpBound, AResetGoesOnFromZeroAndItsSpanIsUncertain) {
    const auto r = record(5, [](std::int64_t t) {
        return t >= 1000 * k_ms ? truth(t) - truth(1000 * k_ms) : true_raw(t);
    });
    EXPECT_EQ(r.returns, 0U);
    EXPECT_EQ(r.resets, 1U);
    EXPECT_NEAR(r.points.back().value, truth(5 * k_s), 0.01 * truth(5 * k_s));
    expect_truth_inside(r, 5 * k_s);
    const auto after = bound_of(r, 3500 * k_ms, 5 * k_s);
    EXPECT_LE(after.high - after.low, 2 * k_max_watts * 1e-3 + 1e-3)
        << "after the reset, only its usual edge staleness (1 ms at each edge)";
}

// A review's case: read every 500 ms, a phase read 0.4 ms after the 1 s reading
// catches a whole 1 ms update (625 W over that sliver), then a torn read of 0 at
// 1.5 s and the counter back at 2 s. The jump was credited at 625 W and the
// return kept the excess (+62.5 J, the figure outside its own bound); now the
// credit comes from intervals of 10 ms or more, is never above the domain's
// limit, and the return makes the total the counter's again.
TEST(JumpBound, AJumpAfterAShortReadIsNotCreditedItsSliversPower) {
    const std::vector<std::int64_t> times{
        0, 500 * k_ms, 1000 * k_ms, 1000 * k_ms + 400'000, 1500 * k_ms, 2000 * k_ms, 2500 * k_ms};
    const auto r = record_at(times, [](std::int64_t t) {
        if (t == 1500 * k_ms) {
            return 0.0;
        }
        const auto updated = t / k_ms * k_ms; // the value as of the last 1 ms update
        return true_raw(t == 1000 * k_ms + 400'000 ? updated + k_ms : updated);
    });
    EXPECT_EQ(r.returns, 1U);
    EXPECT_NEAR(r.points.back().value, truth(2500 * k_ms), 0.3) << "within one update";
    for (const auto& [t0, t1] :
         {std::pair{std::int64_t{0}, 1500 * k_ms}, std::pair{std::int64_t{0}, 2500 * k_ms},
          std::pair{1200 * k_ms, 1800 * k_ms}}) {
        const auto b = bound_of(r, t0, t1);
        EXPECT_LE(b.low, truth(t1) - truth(t0)) << t0 << ".." << t1;
        EXPECT_GE(b.high, truth(t1) - truth(t0)) << t0 << ".." << t1;
    }
}

// A review's case: the power falls from 300 W to 20 W as the counter jumps
// +150 J and goes on from there. Later the old series fits again on average
// (~520 W, nearer 300 W than 20 W), yet the counter never came back: the +150 J
// is not energy.
TEST(JumpBound, ALastingJumpAsThePowerFallsIsNotTakenForAReturn) {
    const auto raw = [](std::int64_t t) {
        const double before = 300.0 * static_cast<double>(std::min(t, 1000 * k_ms)) * 1e-9;
        const double after =
            t > 1000 * k_ms ? 20.0 * static_cast<double>(t - 1000 * k_ms) * 1e-9 : 0.0;
        return k_start_j + before + after + (t >= 1000 * k_ms ? 150.0 : 0.0);
    };
    const auto r = record(4, raw);
    EXPECT_EQ(r.returns, 0U);
    EXPECT_EQ(r.resets, 1U);
    const double truth_j = 300.0 + 20.0 * 3;
    EXPECT_NEAR(r.points.back().value, truth_j, 5.0) << "not +150 J";
}

// A run that ends while a jump is unresolved: the end is an estimate.
TEST(JumpBound, ARunEndingInAJumpIsUncertainToItsEnd) {
    const auto r = record(1.2, [](std::int64_t t) { return t >= 1000 * k_ms ? 3.0 : true_raw(t); });
    const auto spans = estimated_spans(r.points, r.flags);
    ASSERT_EQ(spans.size(), 1U);
    EXPECT_EQ(spans[0].from_ns, 990 * k_ms);
    const auto b = bound_of(r, 0, 1200 * k_ms);
    EXPECT_LE(b.low, truth(1200 * k_ms));
    EXPECT_GE(b.high, truth(1200 * k_ms));
    EXPECT_GE(b.high - b.low, k_max_watts * 0.2) << "the last 210 ms could be anything";
}

} // namespace
} // namespace jp::report
