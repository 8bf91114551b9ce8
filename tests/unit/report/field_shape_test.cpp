// SPDX-License-Identifier: BSD-3-Clause
// The shape of a GPU's power between its counter's anchors from a mean's level and an
// instant field's detail (report/field_shape.hpp): a load switched on and off keeps its
// edges where the 1 s mean alone smears them over a second, on a stand-in step; what
// reaches the shaping from a trace. The real GPUs' runs: field_shape_real_gpu_test.cpp.
#include "channel_samples.hpp"
#include "report/anchored.hpp"
#include "report/field_shape.hpp"
#include "trace/reader.hpp"
#include "trace/types.hpp"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <vector>

namespace jp::report {
namespace {

using namespace test::shape_units;
using test::energy;
using test::samples;

// ---- A stand-in step: 100 W, 650 W from 3 s to 5 s, 100 W again ----

double step_watts(std::int64_t t) {
    return t >= 3 * k_sec && t < 5 * k_sec ? 650.0 : 100.0;
}

// The truth's energy from 0 to t, in joules.
double step_joules(std::int64_t t) {
    const auto s = [](std::int64_t ns) { return static_cast<double>(ns) * 1e-9; };
    const std::int64_t on = std::clamp<std::int64_t>(t, 3 * k_sec, 5 * k_sec) - 3 * k_sec;
    return 100.0 * s(t) + 550.0 * s(on);
}

struct Step {
    trace::ChannelSamples counter;   // at 0 and 10 s
    std::vector<TimedValue> mean;    // the 1 s mean ending at each read, every 100 ms
    std::vector<TimedValue> instant; // the last 30 ms before each read
};

Step step() {
    Step s;
    s.counter = samples({{0, 0}, {10 * k_sec, step_joules(10 * k_sec)}});
    for (std::int64_t t = 0; t <= 10 * k_sec; t += 100 * k_ms) {
        const std::int64_t from = std::max<std::int64_t>(0, t - k_sec);
        const double mean =
            t > from ? (step_joules(t) - step_joules(from)) / (static_cast<double>(t - from) * 1e-9)
                     : step_watts(t);
        s.mean.push_back({t, mean});
        s.instant.push_back({t, step_watts(t - 15 * k_ms)});
    }
    return s;
}

TEST(FieldShape, AStepKeepsItsEdgesWhereTheMeanAloneSmearsThem) {
    const auto s = step();
    const auto level = usable_power(s.mean, 500 * k_ms);
    const auto alone = anchor_shape(s.counter, level).points;
    const auto both =
        anchor_shape(
            s.counter,
            level_and_detail(level, usable_power(s.instant, 50 * k_ms), k_sec, k_gap).points)
            .points;
    const double truth = step_joules(5 * k_sec) - step_joules(3 * k_sec);  // 1,500 J
    const double idle = step_joules(6500 * k_ms) - step_joules(5 * k_sec); // 150 J
    // The mean alone loses a quarter second of the step at each edge (~140 J) and puts it
    // into the idle time beside it.
    EXPECT_GT(std::abs(energy(alone, 3 * k_sec, 5 * k_sec) - truth) / truth, 0.07);
    EXPECT_GT(std::abs(energy(alone, 5 * k_sec, 6500 * k_ms) - idle) / idle, 0.3);
    EXPECT_NEAR(energy(both, 3 * k_sec, 5 * k_sec), truth, 0.03 * truth);
    EXPECT_NEAR(energy(both, 5 * k_sec, 6500 * k_ms), idle, 0.1 * idle);
    // Both meet the counter at its reads.
    EXPECT_DOUBLE_EQ(both.back().value, s.counter.points.back().value);
}

TEST(FieldShape, TheLevelStandsAloneWhereNoInstantReadingHasItsWholeWindow) {
    std::vector<TimedValue> level;
    for (std::int64_t t = 0; t <= 3 * k_sec; t += 100 * k_ms) {
        level.push_back({t, 100});
    }
    // None, one or two instant readings, or readings whose windows all reach past them: the
    // level's own readings, every one of them (a review found two readings had left two
    // points, and every span a straight line).
    for (const std::vector<TimedValue>& instant :
         {std::vector<TimedValue>{}, std::vector<TimedValue>{{0, 150}},
          std::vector<TimedValue>{{0, 150}, {100 * k_ms, 150}},
          std::vector<TimedValue>{{0, 150}, {400 * k_ms, 150}, {800 * k_ms, 150}}}) {
        const auto out = level_and_detail(level, instant, k_sec, k_gap);
        EXPECT_EQ(out.detailed, 0U);
        ASSERT_EQ(out.points.size(), level.size());
        EXPECT_EQ(out.points[5].value, 100.0);
    }
}

TEST(FieldShape, AFieldThatStopsLeavesTheLevelToShapeTheRest) {
    // The instant field's readings end 4 s in, inside the step (an NVML field that failed
    // while nvmlDeviceGetPowerUsage went on: the sampler records no reading then). A review
    // saw the shape clamped to zero after its last reading and a 10 s span's energy squeezed
    // into 140 ms: 5.5 kW on a 700 W GPU.
    auto s = step();
    std::erase_if(s.instant, [](const TimedValue& v) { return v.t_ns > 4 * k_sec; });
    const auto level = usable_power(s.mean, 500 * k_ms);
    const auto shape = level_and_detail(level, usable_power(s.instant, 50 * k_ms), k_sec, k_gap);
    EXPECT_GT(shape.detailed, 0U);
    const auto both = anchor_shape(s.counter, shape.points).points;
    for (std::size_t i = 1; i < both.size(); ++i) {
        const double watts = (both[i].value - both[i - 1].value) /
                             (static_cast<double>(both[i].t_ns - both[i - 1].t_ns) * 1e-9);
        EXPECT_LT(watts, 700.0) << both[i].t_ns; // the step is 650 W at most
    }
    const double after = step_joules(10 * k_sec) - step_joules(5 * k_sec);
    EXPECT_NEAR(energy(both, 5 * k_sec, 10 * k_sec), after, 0.2 * after);
}

TEST(FieldShape, AGapInTheInstantReadingsIsTheLevelsAndEachStretchKeepsItsDetail) {
    auto s = step();
    std::erase_if(s.instant, [](const TimedValue& v) {
        return v.t_ns > 6200 * k_ms && v.t_ns < 8500 * k_ms; // lost for 2.3 s after the step
    });
    const auto level = usable_power(s.mean, 500 * k_ms);
    const auto shape = level_and_detail(level, usable_power(s.instant, 50 * k_ms), k_sec, k_gap);
    const auto in_gap = std::ranges::count_if(shape.points, [](const TimedValue& v) {
        return v.t_ns > 6500 * k_ms && v.t_ns < 8 * k_sec;
    });
    EXPECT_GE(in_gap, 14); // the level's readings there, every 100 ms
    // The detail fades towards a stretch's ends (within half a window of them), so the step's
    // edges, a second and more from the gap, keep theirs.
    const auto both = anchor_shape(s.counter, shape.points).points;
    const double truth = step_joules(5 * k_sec) - step_joules(3 * k_sec);
    EXPECT_NEAR(energy(both, 3 * k_sec, 5 * k_sec), truth, 0.03 * truth); // before the gap
}

TEST(FieldShape, NeverBelowZero) {
    // The level is 10 W while the instant readings fall from 600 W to nothing: just after
    // the fall, their mean over the second is still high and the detail would take the
    // shape below zero.
    std::vector<TimedValue> level{{0, 10}, {3 * k_sec, 10}};
    std::vector<TimedValue> instant;
    for (std::int64_t t = 0; t <= 3 * k_sec; t += 100 * k_ms) {
        instant.push_back({t, t < 1500 * k_ms ? 600.0 : 0.0});
    }
    const auto out = level_and_detail(level, instant, k_sec, k_gap);
    EXPECT_GT(out.detailed, 0U);
    for (const auto& p : out.points) {
        EXPECT_GE(p.value, 0.0) << p.t_ns;
    }
}

TEST(FieldShape, ReadingsThatAreNoPowerArePassedOver) {
    const std::vector<TimedValue> in{{0, 100}, {1, -5}, {2, NAN}, {3, INFINITY}, {4, 2e6}, {5, 7}};
    const auto out = usable_power(in, 1);
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(out[0].t_ns, -1);
    EXPECT_EQ(out[1].value, 7.0);
}

// ---- What reaches level_and_detail from a trace (shape_of) ----

struct Gpu {
    std::vector<Channel> channels; // gpu0 (700 W), gpu0.power (the 1 s mean), gpu0.instant
    Profile profile{1, 2};
};

Gpu gpu_channels() {
    Channel counter;
    counter.name = "gpu0";
    counter.quantity = Quantity::energy;
    counter.backend = "nvml";
    counter.limit_watts = 700;
    Channel mean = counter;
    mean.name = "gpu0.power";
    mean.quantity = Quantity::power;
    mean.profile_of = "gpu0";
    mean.averaging_ns = k_sec;
    Channel instant = mean;
    instant.name = "gpu0.instant";
    instant.profile_of.clear();
    instant.parent = "gpu0";
    instant.averaging_ns.reset();
    instant.update_ns = 100 * k_ms;
    return {{counter, mean, instant}};
}

TEST(FieldShape, AnInstantReadingNoGpuCouldDrawShapesNothing) {
    // A review's crafted trace: one 50 kW instant reading put a phase at 1.1 kW and a 1 s peak
    // at 2.2 kW on a 700 W GPU. A reading above twice the limit is dropped, as a counter's
    // change that large is a jump.
    const auto g = gpu_channels();
    const auto s = step();
    auto spiked = s.instant;
    spiked[40].value = 50'000; // at 4 s, inside the step
    const auto clean_readings = samples(s.instant);
    const auto spiked_readings = samples(spiked);
    const auto shape = shape_of(g.channels, 0, g.profile, samples(s.mean), nullptr);
    const auto clean = shape_of(g.channels, 0, g.profile, samples(s.mean), &clean_readings);
    const auto with_spike = shape_of(g.channels, 0, g.profile, samples(s.mean), &spiked_readings);
    EXPECT_EQ(shape.detailed, 0U);
    EXPECT_GT(with_spike.detailed, 0U);
    for (const auto& p : with_spike.points) {
        EXPECT_LT(p.value, 1000.0) << p.t_ns;
    }
    const auto a = anchor_shape(s.counter, clean.points).points;
    const auto b = anchor_shape(s.counter, with_spike.points).points;
    EXPECT_NEAR(energy(b, 3 * k_sec, 5 * k_sec), energy(a, 3 * k_sec, 5 * k_sec),
                0.05 * energy(a, 3 * k_sec, 5 * k_sec));
}

TEST(FieldShape, AnInstantFieldOnAnotherScaleGivesNoDetail) {
    // In milliwatts, or three times the mean: its detail would be scaled with it (a review
    // saw a phase at 829 W on a 700 W GPU). Over the time both cover, the instant readings'
    // integral must be within a third either way of the mean's.
    const auto g = gpu_channels();
    const auto s = step();
    for (const double scale : {3.0, 0.5, 1000.0}) {
        auto scaled = s.instant;
        for (auto& v : scaled) {
            v.value *= scale;
        }
        const auto d = samples(scaled);
        EXPECT_EQ(shape_of(g.channels, 0, g.profile, samples(s.mean), &d).detailed, 0U) << scale;
    }
    const auto d = samples(s.instant);
    EXPECT_GT(shape_of(g.channels, 0, g.profile, samples(s.mean), &d).detailed, 0U);
}

} // namespace
} // namespace jp::report
