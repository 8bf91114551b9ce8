// SPDX-License-Identifier: BSD-3-Clause
// Power from counters read faster than they update: the readings' own timing
// decides the spans power is derived over, and peaks stay at the truth.
#include "report/series.hpp"
#include "report/timing.hpp"
#include "trace/types.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <limits>
#include <random>

namespace jp::report {
namespace {

constexpr std::int64_t k_ms = 1'000'000;

Channel counter(std::optional<std::int64_t> update_ns = std::nullopt) {
    Channel c;
    c.name = "gpu0";
    c.quantity = Quantity::energy;
    c.backend = "nvml";
    c.update_ns = update_ns;
    return c;
}

// A counter at `watts` that the source updates every update_ns, read every
// read_ns with up to jitter_ns of lateness, for seconds.
std::vector<TimedValue> readings(double watts,
                                 std::int64_t update_ns,
                                 std::int64_t read_ns,
                                 std::int64_t jitter_ns,
                                 double seconds,
                                 unsigned seed = 1) {
    std::mt19937 rng{seed};
    std::uniform_int_distribution<std::int64_t> late{0, jitter_ns};
    std::vector<TimedValue> out;
    for (std::int64_t t = 0; t <= static_cast<std::int64_t>(seconds * 1e9); t += read_ns) {
        const auto at = t + (jitter_ns > 0 ? late(rng) : 0);
        const auto updated = at / update_ns * update_ns; // the value the source shows at `at`
        out.push_back({at, watts * static_cast<double>(updated) * 1e-9});
    }
    return out;
}

double peak(const Channel& c, const std::vector<TimedValue>& r) {
    const auto t = timing_of(c, r);
    const auto k = knots_of(c, r);
    const auto g = channel_grid(c, k, r.front().t_ns, r.back().t_ns, t.resolution_ns);
    return *std::ranges::max_element(g.watts);
}

TEST(Timing, ACounterReadTwiceAsFastAsItUpdatesShowsNoPhantomPeaks) {
    // The case: a GPU at a constant 300 W, counter every 20 ms, read every 10 ms.
    const auto c = counter();
    const auto r = readings(300, 20 * k_ms, 10 * k_ms, 2 * k_ms, 10);
    const auto t = timing_of(c, r);
    EXPECT_TRUE(t.update_learned);
    EXPECT_NEAR(static_cast<double>(t.update_ns), 20 * k_ms, 1 * k_ms) << "readings come late";
    EXPECT_TRUE(t.oversampled());
    EXPECT_NEAR(static_cast<double>(t.resolution_ns), 200 * k_ms, 5 * k_ms)
        << "20 × the 10 ms uncertainty";
    EXPECT_NEAR(peak(c, r), 300, 30) << "within 10 %";
    // Read by reading, the same data would show twice the power and zero.
    double naive = 0;
    for (std::size_t i = 1; i < r.size(); ++i) {
        naive = std::max(naive, (r[i].value - r[i - 1].value) /
                                    (static_cast<double>(r[i].t_ns - r[i - 1].t_ns) * 1e-9));
    }
    EXPECT_GT(naive, 550) << "the aliasing this prevents";
    EXPECT_FALSE(timing_note(c, t).empty());
}

TEST(Timing, RaplReadEveryMillisecondPeaksAtTheTruth) {
    const auto c = counter(1 * k_ms); // RAPL: about 1 ms, read at 1 ms with scheduling lateness
    const auto r = readings(283, 976'000, 1 * k_ms, 300'000, 5, 3);
    const auto t = timing_of(c, r);
    EXPECT_NEAR(static_cast<double>(t.resolution_ns), 20 * k_ms, 0.5 * k_ms);
    EXPECT_LE(peak(c, r), 283 * 1.1);
    EXPECT_GE(peak(c, r), 283 * 0.9);
}

TEST(Timing, ReadingsSlowerThanUpdatesKeepTheirOwnResolution) {
    const auto c = counter(1 * k_ms);
    const auto r = readings(150, 976'000, 500 * k_ms, 0, 20);
    const auto t = timing_of(c, r);
    EXPECT_FALSE(t.update_learned) << "the value changed at every reading";
    EXPECT_EQ(t.resolution_ns, 500 * k_ms);
    EXPECT_FALSE(t.oversampled());
    EXPECT_TRUE(timing_note(c, t).empty());
    EXPECT_NEAR(peak(c, r), 150, 1);
}

TEST(Timing, ABmcPowerReadingHeldForASecondIsNotAveragedAway) {
    Channel node;
    node.name = "node";
    node.quantity = Quantity::power;
    node.backend = "ipmi";
    std::vector<TimedValue> r;
    for (int i = 0; i <= 100; ++i) { // read every 100 ms; the BMC updates every second
        r.push_back({i * 100 * k_ms, i >= 50 && i < 60 ? 900.0 : 400.0 + (i / 10) * 0.5});
    }
    const auto t = timing_of(node, r);
    EXPECT_TRUE(t.update_learned);
    EXPECT_EQ(t.update_ns, 1000 * k_ms);
    EXPECT_EQ(t.resolution_ns, 1000 * k_ms) << "power readings: no extra factor";
}

TEST(Timing, ABmcThatSaysItAveragesIsSaidSo) {
    Channel node;
    node.name = "node";
    node.quantity = Quantity::power;
    node.backend = "ipmi";
    node.source = "ipmi:dcmi out-of-band 127.0.0.1:9623";
    node.averaging_ns = 1000 * k_ms;
    std::vector<TimedValue> r;
    for (int i = 0; i <= 20; ++i) { // read every second, a new mean each time
        r.push_back({i * 1000 * k_ms, 400.0 + i});
    }
    const auto t = timing_of(node, r);
    EXPECT_EQ(t.resolution_ns, 1000 * k_ms);
    const auto note = timing_note(node, t);
    EXPECT_NE(note.find("the BMC reports 1.000 s averages (ipmi:dcmi"), std::string::npos) << note;
    node.averaging_ns = 5000 * k_ms; // longer than the reading interval
    const auto coarse = timing_of(node, r);
    EXPECT_EQ(coarse.resolution_ns, 5000 * k_ms) << "no finer than the BMC's window";
    node.averaging_ns.reset();
    EXPECT_TRUE(timing_note(node, timing_of(node, r)).empty());
}

TEST(Timing, KnotsKeepTheEdgesAndEveryChange) {
    const auto c = counter();
    const std::vector<TimedValue> r{{0, 0}, {10, 0}, {20, 6}, {30, 6}, {40, 12}, {50, 12}};
    const auto k = knots_of(c, r);
    ASSERT_EQ(k.size(), 4U);
    EXPECT_EQ(k[1].t_ns, 20);
    EXPECT_EQ(k[2].t_ns, 40);
    EXPECT_EQ(k.back().t_ns, 50) << "the end edge stays: a run's energy is exact";
    Channel p;
    p.quantity = Quantity::power;
    EXPECT_EQ(knots_of(p, r).size(), r.size());
}

TEST(Timing, AMeanSinceThePreviousReadingHoldsOverTheIntervalBeforeIt) {
    // The CPU estimate: each reading is the utilisation since the one before. The
    // first covers jouleprof's own start-up, before the run: it counts for nothing.
    Channel est;
    est.name = "cpu.estimate";
    est.quantity = Quantity::power;
    est.mean_since_previous = true;
    const std::vector<TimedValue> r{{0, 95}, {1000 * k_ms, 20}, {2000 * k_ms, 40}};
    const auto k = knots_of(est, r);
    ASSERT_EQ(k.size(), 4U);
    EXPECT_EQ(k[0].value, 20) << "the first interval holds the second reading";
    EXPECT_EQ(k[2].value, 40);
    const auto g = channel_grid(est, k, 0, 2000 * k_ms, 1000 * k_ms);
    ASSERT_EQ(g.watts.size(), 2U);
    EXPECT_NEAR(g.watts[0], 20, 1e-9) << "a step, not the trapezoid's 57.5 W";
    EXPECT_NEAR(g.watts[1], 40, 1e-9);
    EXPECT_LT(*std::ranges::max_element(g.watts), 95) << "the start-up is not the peak";
}

TEST(Timing, ResolutionFollowsTheRule) {
    EXPECT_EQ(resolution_for(Quantity::energy, 10 * k_ms, 0), 10 * k_ms) << "unknown: as read";
    EXPECT_EQ(resolution_for(Quantity::energy, 10 * k_ms, 100 * k_ms), 200 * k_ms);
    EXPECT_EQ(resolution_for(Quantity::energy, 500 * k_ms, 100 * k_ms), 2000 * k_ms);
    EXPECT_EQ(resolution_for(Quantity::power, 10 * k_ms, 100 * k_ms), 100 * k_ms);
}

TEST(Timing, AGridIsNeverFinerThanItsReadings) {
    // Found by fuzzing `report`: an 18 KB trace whose readings were nanoseconds apart
    // asked for a grid at that step over its whole run, a billion windows a second.
    const auto c = counter();
    const std::vector<TimedValue> crafted{{0, 0}, {1, 1}, {2, 2}, {10'000 * k_ms, 3}};
    const auto t = timing_of(c, crafted);
    EXPECT_LE(t.resolution_ns, 2) << "what the readings claim";
    const auto g = channel_grid(c, crafted, 0, 10'000 * k_ms, t.resolution_ns);
    EXPECT_LE(g.watts.size(), static_cast<std::size_t>(k_windows_per_knot * 4 + 16));
    EXPECT_EQ(g.step_ns, bounded_step(t.resolution_ns, 0, 10'000 * k_ms, crafted.size()));
    const ChannelData d{&c, crafted, t.resolution_ns};
    const auto node = grid_of(std::span{&d, 1}, 0, 10'000 * k_ms, 0);
    EXPECT_EQ(node.step_ns, g.step_ns) << "the node's grid is bounded alike";
    EXPECT_EQ(node.watts.size(), g.watts.size());
    // An honest counter keeps its own resolution: 60 s read every 100 ms.
    const auto r = readings(300, 100 * k_ms, 100 * k_ms, 0, 60);
    EXPECT_EQ(bounded_step(100 * k_ms, 0, 60'000 * k_ms, knots_of(c, r).size()), 100 * k_ms);
    EXPECT_EQ(bounded_step(20 * k_ms, 0, 86'400'000 * k_ms, 86'400'000), 20 * k_ms)
        << "a day read every millisecond, at RAPL's 20 ms resolution";
    EXPECT_EQ(bounded_step(k_ms, 0, 86'400'000 * k_ms, 86'400'000),
              86'400'000 * k_ms / k_max_grid_windows + 1)
        << "but never more than k_max_grid_windows";
}

TEST(Timing, AGridNearTheEndOfTimeNeverStepsPastIt) {
    // Found by fuzzing `report`: a run ending near 2^63 ns stepped its last
    // window past the int64 range (UBSan: signed overflow). The reader now
    // refuses times beyond 2^61 ns; the grid never steps past its end anyway.
    const auto c = counter();
    constexpr auto end = std::numeric_limits<std::int64_t>::max() - 1;
    constexpr auto start = end - 10'000 * k_ms;
    const std::vector<TimedValue> r{{start, 0}, {end, 1000}}; // 100 W for 10 s
    const auto g = channel_grid(c, r, start, end, 3'000 * k_ms);
    ASSERT_EQ(g.watts.size(), 3U) << "three 3 s windows; the 1 s tail is shorter than half a step";
    EXPECT_EQ(g.t1, start + 9'000 * k_ms);
    double joules = 0;
    for (std::size_t i = 0; i < g.watts.size(); ++i) {
        EXPECT_NEAR(g.watts[i], 100, 1e-6) << i;
        joules += g.watts[i] * g.seconds_of(i);
    }
    EXPECT_NEAR(joules, 900, 1e-6);
}

// A user's run: RAPL (1 ms updates) read every 500 ms with a phase marker every
// second, whose exact read comes 0.4 ms after a regular one and so repeats its
// value. Those repeats say nothing about the counter: it still changes every
// 1 ms, and power is known at the readings' own 500 ms, not at 20 × 500 ms.
TEST(Timing, PhaseReadsJustAfterARegularReadingTeachNothingAboutTheSource) {
    const auto c = counter(1 * k_ms);
    const auto plain = readings(150, 976'000, 500 * k_ms, 0, 6);
    std::vector<TimedValue> with_phases;
    std::vector<std::uint8_t> flags;
    for (std::size_t i = 0; i < plain.size(); ++i) {
        with_phases.push_back(plain[i]);
        flags.push_back(0);
        if (i % 2 == 1) { // the phase edge: the same value, 0.4 ms later
            with_phases.push_back({plain[i].t_ns + 400'000, plain[i].value});
            flags.push_back(trace::k_flag_edge);
        }
    }
    const auto before = timing_of(c, plain);
    ASSERT_FALSE(before.update_learned);
    ASSERT_EQ(before.resolution_ns, 500 * k_ms);
    for (const bool flagged : {true, false}) { // flags unknown: the repeats' spacing says it
        const auto t = timing_of(c, with_phases,
                                 flagged ? std::span<const std::uint8_t>{flags}
                                         : std::span<const std::uint8_t>{});
        EXPECT_FALSE(t.update_learned) << "flagged " << flagged;
        EXPECT_EQ(t.update_ns, before.update_ns) << "flagged " << flagged;
        EXPECT_NEAR(static_cast<double>(t.resolution_ns), static_cast<double>(before.resolution_ns),
                    0.01 * 500 * k_ms)
            << "flagged " << flagged;
    }
    // With the flags, the edge reads do not count toward the readings' spacing either.
    EXPECT_EQ(timing_of(c, with_phases, flags).sample_ns, before.sample_ns);
}

} // namespace
} // namespace jp::report
