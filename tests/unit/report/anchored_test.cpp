// SPDX-License-Identifier: BSD-3-Clause
// A GPU's energy counter read only at anchors and its power field read between them
// (report/anchored.hpp): the shaped readings meet the counter at every anchor, follow the
// field in between scaled to the counter's delta, and say how much of the counter the field
// saw. Replayed on the real H100's and H200's captures (tests/data/h100, h200): anchors
// every 10 s from the counter, the instant field at its ~100 ms, against the counter's own
// 100 ms readings.
#include "channel_samples.hpp"
#include "gpu_capture.hpp"
#include "report/anchored.hpp"
#include "report/series.hpp"
#include "report/timing.hpp"
#include "trace/types.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <string>
#include <vector>

namespace jp::report {
namespace {

using namespace test::shape_units;
using test::samples;
using test::value_at;

TEST(Anchored, MeetsTheCounterAtEveryAnchorAndFollowsTheFieldBetween) {
    // Counter at 0, 10, 20 s: 1,000 J then 3,000 J. The field reads 50 W for the first 5 s
    // and 150 W after (so it saw 1,000 J in the first span: a coverage of 1), then 100 W
    // flat (1,000 J seen of 3,000: a third).
    const auto counter = samples({{0, 0}, {10 * k_sec, 1000}, {20 * k_sec, 4000}});
    std::vector<TimedValue> field;
    for (std::int64_t t = 0; t <= 20 * k_sec; t += 100 * k_ms) {
        field.push_back({t, t < 5 * k_sec ? 50.0 : (t < 10 * k_sec ? 150.0 : 100.0)});
    }
    std::vector<AnchorSpan> spans;
    const auto out = anchor_profile(counter, samples(field), &spans);
    ASSERT_EQ(spans.size(), 2U);
    EXPECT_TRUE(spans[0].profiled);
    EXPECT_NEAR(spans[0].field_j, 1000.0, 5.0); // trapezoids straddle the steps
    EXPECT_NEAR(spans[1].field_j, 1000.0, 1e-6);
    EXPECT_DOUBLE_EQ(spans[1].counter_j, 3000.0);
    EXPECT_EQ(value_at(out.points, 10 * k_sec), 1000.0); // the anchors are the counter's
    EXPECT_EQ(out.points.back().value, 4000.0);
    // In the first span the field's shape: 5 s at 50 W is about a quarter of the span.
    EXPECT_NEAR(value_at(out.points, 5 * k_sec), 250.0, 5.0);
    // In the second, the flat field scaled ×3: halfway is halfway.
    EXPECT_NEAR(value_at(out.points, 15 * k_sec), 2500.0, 1e-6);
    std::size_t profiled = 0;
    for (std::size_t i = 0; i < out.points.size(); ++i) {
        profiled += (out.flags[i] & trace::k_flag_profiled) != 0 ? 1U : 0U;
        if (i > 0) {
            EXPECT_GT(out.points[i].t_ns, out.points[i - 1].t_ns);
            EXPECT_GE(out.points[i].value, out.points[i - 1].value);
        }
    }
    EXPECT_EQ(profiled, 2U * 99U); // every field reading strictly inside a span
    const auto c = coverage_of("gpu0", "gpu0.power", spans);
    ASSERT_TRUE(c);
    EXPECT_NEAR(c->ratio, 2000.0 / 4000.0, 0.01);
    EXPECT_NEAR(c->min_ratio, 1.0 / 3.0, 1e-6);
    EXPECT_NEAR(c->max_ratio, 1.0, 0.01);
    EXPECT_EQ(c->spans, 2U);
    EXPECT_NE(coverage_note(*c).find("0.50 × its energy counter over 2 spans"), std::string::npos)
        << coverage_note(*c);
}

TEST(Anchored, KeepsTheCounterLineWhereTheFieldCannotShapeIt) {
    const auto counter =
        samples({{0, 0}, {10 * k_sec, 1000}, {20 * k_sec, 500}, {30 * k_sec, 1500}});
    // A field of zero over the first span, none inside the third, a reset in the second.
    const auto field = samples({{0, 0}, {5 * k_sec, 0}, {10 * k_sec, 0}, {15 * k_sec, 100}});
    std::vector<AnchorSpan> spans;
    const auto out = anchor_profile(counter, field, &spans);
    ASSERT_EQ(spans.size(), 3U);
    for (const auto& s : spans) {
        EXPECT_FALSE(s.profiled);
    }
    EXPECT_EQ(out.points.size(), 4U); // the counter alone
    EXPECT_FALSE(coverage_of("gpu0", "gpu0.power", spans));
    // An estimate (a jump) at either end of a span is not shaped either.
    auto jumped = samples({{0, 0}, {10 * k_sec, 1000}});
    jumped.flags[1] = trace::k_flag_jump;
    std::vector<AnchorSpan> one;
    (void)anchor_profile(jumped, samples({{0, 100}, {5 * k_sec, 100}, {10 * k_sec, 100}}), &one);
    ASSERT_EQ(one.size(), 1U);
    EXPECT_FALSE(one[0].profiled);
}

TEST(Anchored, AReadingThatIsNoPowerShapesNothing) {
    const auto counter = samples({{0, 0}, {10 * k_sec, 1000}, {20 * k_sec, 2000}});
    std::vector<TimedValue> field;
    for (std::int64_t t = 0; t <= 20 * k_sec; t += 100 * k_ms) {
        field.push_back({t, 100});
    }
    field[5].value = std::numeric_limits<double>::quiet_NaN();
    field[50].value = -1000;
    field[120].value = std::numeric_limits<double>::infinity();
    field[150].value = 1e308;
    std::vector<AnchorSpan> spans;
    const auto out = anchor_profile(counter, samples(field), &spans);
    ASSERT_EQ(spans.size(), 2U);
    for (const auto& s : spans) {
        EXPECT_TRUE(s.profiled);
        EXPECT_NEAR(s.field_j, 1000.0, 1e-6); // the readings around each bad one carry it
    }
    for (std::size_t i = 1; i < out.points.size(); ++i) {
        EXPECT_TRUE(std::isfinite(out.points[i].value));
        EXPECT_GE(out.points[i].value, out.points[i - 1].value);
    }
    EXPECT_EQ(out.points.back().value, 2000.0);
}

TEST(Anchored, TooFewReadingsChangeNothing) {
    const auto counter = samples({{0, 0}, {10 * k_sec, 1000}});
    EXPECT_EQ(anchor_profile(counter, samples({{5 * k_sec, 100}})).points.size(), 2U);
    EXPECT_EQ(anchor_profile(samples({{0, 0}}), samples({{0, 1}, {1, 2}})).points.size(), 1U);
}

TEST(Anchored, APowerChannelProfilesTheCounterItNames) {
    Channel counter;
    counter.name = "gpu0";
    counter.quantity = Quantity::energy;
    Channel field = counter;
    field.name = "gpu0.power";
    field.quantity = Quantity::power;
    field.profile_of = "gpu0";
    Channel util = counter;
    util.name = "gpu0.util";
    util.quantity = Quantity::utilization;
    util.profile_of = "gpu0"; // not power: not a profile
    Channel second = field;   // a second profile of the same counter: the first one wins
    second.name = "gpu0.power2";
    Channel self = field; // names itself, a power channel: no counter
    self.name = "gpu0.self";
    self.profile_of = "gpu0.self";
    const std::vector channels{util, counter, field, second, self};
    const auto index = profile_index(channels);
    ASSERT_EQ(index.size(), channels.size());
    ASSERT_TRUE(index[1]);
    EXPECT_EQ(index[1]->level, 2U);
    EXPECT_FALSE(index[1]->detail); // the profile is no mean: it needs no detail
    EXPECT_FALSE(index[0]);
    EXPECT_FALSE(index[2]); // a power channel has no profile
    EXPECT_FALSE(index[4]);
}

TEST(Anchored, AMeanProfileTakesItsDetailFromAnInstantReadingWithinTheCounter) {
    Channel counter;
    counter.name = "gpu0";
    counter.quantity = Quantity::energy;
    Channel mean = counter;
    mean.name = "gpu0.power";
    mean.quantity = Quantity::power;
    mean.profile_of = "gpu0";
    mean.averaging_ns = k_sec;
    Channel averaged = mean; // within the counter, but a mean too: no detail
    averaged.name = "gpu0.average";
    averaged.profile_of.clear();
    averaged.parent = "gpu0";
    Channel elsewhere = averaged; // an instant reading within another counter
    elsewhere.name = "gpu1.instant";
    elsewhere.averaging_ns.reset();
    elsewhere.parent = "gpu1";
    Channel instant = elsewhere;
    instant.name = "gpu0.instant";
    instant.parent = "gpu0";
    const std::vector channels{counter, mean, averaged, elsewhere, instant};
    const auto index = profile_index(channels);
    ASSERT_TRUE(index[0]);
    EXPECT_EQ(index[0]->level, 1U);
    EXPECT_EQ(index[0]->detail, std::optional<std::size_t>{4});
}

TEST(Anchored, ItsPowerIsKnownAsFinelyAsTheField) {
    Channel counter;
    counter.name = "gpu0";
    counter.quantity = Quantity::energy;
    counter.update_ns = 100 * k_ms;
    std::vector<TimedValue> field;
    for (std::int64_t t = 0; t <= 20 * k_sec; t += 100 * k_ms) {
        field.push_back({t, 300});
    }
    const auto out =
        anchor_profile(samples({{0, 0}, {10 * k_sec, 3000}, {20 * k_sec, 6000}}), samples(field));
    EXPECT_EQ(timing_of(counter, out.points, out.flags).resolution_ns, 100 * k_ms);
    // Unshaped, a counter read every 100 ms that updates as often is known over 2 s.
    std::vector<TimedValue> read;
    for (const auto& f : field) {
        read.push_back({f.t_ns, 300.0 * static_cast<double>(f.t_ns) * 1e-9});
    }
    EXPECT_EQ(timing_of(counter, read).resolution_ns, 2 * k_sec);
}

// ---- The real GPUs' captures through the same path ----

struct Replay {
    std::vector<TimedValue> truth; // the counter read every ~100 ms: the truth
    trace::ChannelSamples shaped;  // anchors every 10 s + a field
    std::vector<AnchorSpan> spans;
};

// The counter at anchors every 10 s and at both ends, shaped by field `what` of the capture
// (average_mw: NVML's 1 s mean, centred as the nvml backend's "gpuN.power" is).
Replay replay(const std::string& gpu, const std::string& load, const std::string& what) {
    Replay r;
    r.truth = test::field_capture(gpu, load + ".csv", "energy_mj");
    const auto field = test::field_capture(gpu, load + ".csv", what);
    std::vector<TimedValue> anchors{r.truth.front()};
    for (const auto& e : r.truth) {
        if (e.t_ns - anchors.back().t_ns >= 10 * k_sec) {
            anchors.push_back(e);
        }
    }
    if (anchors.back().t_ns != r.truth.back().t_ns) {
        anchors.push_back(r.truth.back());
    }
    const std::int64_t centre = what == "average_mw" ? 500 * k_ms : 0;
    r.shaped = anchor_profile(samples(anchors), samples(field), &r.spans, centre);
    return r;
}

// The worst relative error of a whole second's energy inside the capture, shaped against
// the counter read every 100 ms (itself up to an update, ~25 J at 250 W, off).
double worst_second(const Replay& r) {
    const auto& p = r.shaped.points;
    double worst = 0;
    for (std::int64_t t = p.front().t_ns + k_sec; t + k_sec <= p.back().t_ns; t += k_sec) {
        const double shaped = value_at(p, t + k_sec) - value_at(p, t);
        const double truth = value_at(r.truth, t + k_sec) - value_at(r.truth, t);
        worst = std::max(worst, std::abs(shaped - truth) / truth);
    }
    return worst;
}

constexpr std::array k_gpus{"h100", "h200"};
constexpr std::array k_loads{"square-37ms", "square-130ms", "pulse-101ms", "pulse-103ms"};

TEST(AnchoredOnRealGpus, TheTotalIsTheCountersAndEachSecondIsCloseToIt) {
    for (const auto* gpu : k_gpus) {
        for (const auto* load : k_loads) {
            SCOPED_TRACE(std::string{gpu} + " " + load);
            const auto r = replay(gpu, load, "average_mw");
            const auto& p = r.shaped.points;
            EXPECT_EQ(p.back().value - p.front().value,
                      r.truth.back().value - r.truth.front().value);
            // docs/gpu-check.md: 0-29 % at worst, at a load's switch inside a second.
            EXPECT_LT(worst_second(r), 0.35);
        }
    }
}

TEST(AnchoredOnRealGpus, ThePartTimeInstantFieldWouldMisplaceAPulseTrainsEnergy) {
    // Why the instant field is not the profile alone (it gives the detail beside the 1 s
    // mean: field_shape_test.cpp): it sees 25-35 ms of each 100 ms, and a train of pulses
    // every 101 ms beats against it, so whole seconds come out half or double while the
    // counter's total stays right.
    for (const auto* gpu : k_gpus) {
        SCOPED_TRACE(gpu);
        const auto instant = replay(gpu, "pulse-101ms", "instant_mw");
        const auto average = replay(gpu, "pulse-101ms", "average_mw");
        EXPECT_GT(worst_second(instant), 0.5);
        EXPECT_LT(worst_second(average), 0.2);
    }
}

TEST(AnchoredOnRealGpus, CoverageShowsWhatThePartTimeFieldMissed) {
    // docs/gpu-check.md: integrated alone, the instant field was 7 % (H100) and 15 % (H200)
    // low over the 101 ms pulse train, within 1-5 % elsewhere; the 1 s mean within 1.6 %.
    for (const auto* gpu : k_gpus) {
        SCOPED_TRACE(gpu);
        const auto instant =
            coverage_of("gpu0", "gpu0.instant", replay(gpu, "pulse-101ms", "instant_mw").spans);
        ASSERT_TRUE(instant);
        EXPECT_LT(instant->ratio, 0.95);
        EXPECT_GT(instant->ratio, 0.80);
        for (const auto* load : k_loads) {
            const auto mean =
                coverage_of("gpu0", "gpu0.power", replay(gpu, load, "average_mw").spans);
            ASSERT_TRUE(mean) << load;
            EXPECT_NEAR(mean->ratio, 1.0, 0.03) << load;
        }
    }
}

TEST(AnchoredOnRealGpus, TheProfileShowsWhatTheCounterAloneCannot) {
    // Read every 10 s, the counter shows only its mean; shaped, the profile shows the load
    // switching on 4 s into the capture, at the 1 s mean's resolution.
    const auto r = replay("h200", "square-130ms", "average_mw");
    Channel c;
    c.name = "gpu0";
    c.quantity = Quantity::energy;
    c.update_ns = 100 * k_ms;
    c.averaging_ns = k_sec; // as the nvml backend marks a counter profiled by the 1 s mean
    const auto t = timing_of(c, r.shaped.points, r.shaped.flags);
    EXPECT_EQ(t.resolution_ns, k_sec);
    const auto knots = knots_of(c, r.shaped.points, r.shaped.flags);
    const auto g = channel_grid(c, knots, knots.front().t_ns, knots.back().t_ns, t.resolution_ns);
    ASSERT_GT(g.watts.size(), 30U);
    EXPECT_LT(g.watts[2], 100.0);  // idle, ~80 W
    EXPECT_GT(g.watts[10], 400.0); // the square wave's mean, ~500 W
    const double first_span = (value_at(r.truth, r.spans[0].t1_ns) - r.truth.front().value) /
                              (static_cast<double>(r.spans[0].t1_ns - r.spans[0].t0_ns) * 1e-9);
    EXPECT_LT(first_span, 350.0); // what the counter alone would draw for all ten seconds
}

} // namespace
} // namespace jp::report
