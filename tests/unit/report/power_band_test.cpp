// SPDX-License-Identifier: BSD-3-Clause
// The band of the HTML profile (report/power_band.hpp): where the sensors' bounds put
// the node's mean power window by window; the truth inside every window, and the band
// as narrow as the counter's own limits make it when windows end at its readings; and the
// node's peak, whose truth lies inside the highest of the windows' bounds.
#include "fake_sysfs.hpp"
#include "report/format.hpp"
#include "report/power_band.hpp"
#include "report/series.hpp"
#include "report/summary.hpp"
#include "report/window.hpp"
#include "trace_builder.hpp"

#include <algorithm>
#include <functional>
#include <gtest/gtest.h>
#include <optional>
#include <stdexcept>
#include <tuple>

namespace jp::report {
namespace {

double step_up(std::size_t, double t) {
    return t < 5.05 ? 300 : 500; // between two readings: no doubt which side a reading is on
}

// One measured power reading's run ("a", read every 100 ms, may draw `limit` W) in a trace
// on a fake tree that lives as long as it.
struct PowerFieldRun {
    PowerFieldRun(std::string name, Domain domain, double limit, double seconds, test::Profile f)
        : b{fs.path("/p.jptrace"),
            {test::channel(
                std::move(name), domain, Quantity::power, Provenance::measured, limit)}} {
        b.run(test::make_run("a", seconds, std::move(f), 0.1));
    }
    test::FakeSysfs fs;
    test::TraceBuilder b;
};

TEST(PowerBand, TheTruthIsInsideEveryWindowAndTheBandIsTheCountersOwnWidth) {
    test::FakeSysfs fs;
    // A node meter whose counter changes every millisecond and may draw 600 W (so the
    // bound takes 1.2 kW), read every 100 ms; 300 W, then 500 W from the step at 5.1 s.
    auto node = test::channel("node", Domain::node, Quantity::energy, Provenance::measured, 600);
    node.update_ns = 1'000'000;
    test::TraceBuilder b{fs.path("/b.jptrace"), {node}};
    b.run(test::make_run("a", 10, step_up, 0.1));
    auto r = b.reader();
    const auto d = load_run(r, r.runs()[0]);
    ASSERT_TRUE(d);
    const auto band = node_power_band(*d, 20);
    ASSERT_EQ(band.size(), 20U); // 0.5 s windows, each ending on a reading
    // At each edge (a reading) the counter lies between the reading and 1.201 J above it (a
    // millisecond stale at 1.2 kW, a millijoule short): ± 1.201 J over 0.5 s.
    constexpr double k_half = 1.201 / 0.5;
    for (const auto& p : band) {
        const double a = 10 * p.x - 0.25;
        const double truth = test::exact_joules(step_up, 0, 0.1, a, a + 0.5) / 0.5;
        EXPECT_LE(p.low_w, truth) << p.x;
        EXPECT_GE(p.high_w, truth) << p.x;
        EXPECT_NEAR(p.high_w - p.low_w, 2 * k_half, 1e-6) << p.x;
    }
    EXPECT_NEAR(band.front().x, 0.025, 1e-9);
    EXPECT_NEAR(band.back().x, 0.975, 1e-9);
    // Never finer than the counter's readings: 1,000 windows asked, 100 given.
    EXPECT_EQ(node_power_band(*d, 1000).size(), 100U);
}

TEST(PowerBand, ANodePowerFieldGivesABandThatHoldsTheTruthOnItsAssumption) {
    // A node meter that gives power, not energy (a BMC's reading), read every 100 ms; the
    // power between two readings stays between their values (the field's stated assumption).
    PowerFieldRun power{"node", Domain::node, 600, 10, step_up};
    auto rp = power.b.reader();
    const auto d = load_run(rp, rp.runs()[0]);
    ASSERT_TRUE(d);
    const auto band = node_power_band(*d, 20);
    ASSERT_EQ(band.size(), 20U) << "0.5 s windows";
    for (const auto& p : band) {
        const double a = 10 * p.x - 0.25;
        const double truth = test::exact_joules(step_up, 0, 0.1, a, a + 0.5) / 0.5;
        EXPECT_LE(p.low_w, truth) << p.x;
        EXPECT_GE(p.high_w, truth) << p.x;
        EXPECT_LT(p.high_w - p.low_w, 600) << p.x << ": narrower than anything it could draw";
    }
    // Where the power held, the band is the readings' own (a quantum, the lag at an edge).
    EXPECT_LT(band.front().high_w - band.front().low_w, 0.01 * 300);
}

TEST(PowerBand, NoBandWhereTheNodesEnergyHasNoBound) {
    test::FakeSysfs fs;
    test::TraceBuilder model{fs.path("/m.jptrace"),
                             {test::channel("cpu0.package", Domain::cpu_package, Quantity::energy)},
                             {{"node.rest_watts", "80"}}};
    model.run(test::make_run("a", 5, step_up, 0.1));
    auto rm = model.reader();
    EXPECT_TRUE(node_power_band(*load_run(rm, rm.runs()[0]), 20).empty()) << "a rest model";
    test::TraceBuilder estimate{fs.path("/e.jptrace"),
                                {test::channel("cpu.estimate", Domain::cpu_package, Quantity::power,
                                               Provenance::estimated)}};
    estimate.run(test::make_run("a", 5, step_up, 0.1));
    auto re = estimate.reader();
    EXPECT_TRUE(node_power_band(*load_run(re, re.runs()[0]), 20).empty()) << "an estimate";
}

double pulse(std::size_t, double t) {
    return t >= 4.0 && t < 4.3 ? 700 : 300;
}

TEST(PeakBound, TheHighestWindowsTruthAndTheFigureLieInsideIt) {
    test::FakeSysfs fs;
    // A 1 ms counter that may draw 1 kW, read every 10 ms: 300 W with 300 ms at 700 W.
    auto node = test::channel("node", Domain::node, Quantity::energy, Provenance::measured, 1000);
    node.update_ns = 1'000'000;
    test::TraceBuilder b{fs.path("/b.jptrace"), {node}};
    b.run(test::make_run("a", 8, pulse, 0.01));
    auto r = b.reader();
    const auto d = load_run(r, r.runs()[0]);
    ASSERT_TRUE(d);
    const auto grid = node_grid(*d, d->t0, d->t1);
    ASSERT_FALSE(grid.watts.empty());
    double truth = 0;
    for (std::size_t i = 0; i < grid.watts.size(); ++i) {
        const double a = static_cast<double>(static_cast<std::int64_t>(i) * grid.step_ns) * 1e-9;
        const double s = grid.seconds_of(i);
        truth = std::max(truth, test::exact_joules(pulse, 0, 0.01, a, a + s) / s);
    }
    const auto peak = node_peak_bound(*d, grid);
    ASSERT_TRUE(peak);
    const double figure = *std::ranges::max_element(grid.watts);
    EXPECT_NEAR(truth, 700, 1e-6);
    EXPECT_LE(peak->low_w, truth);
    EXPECT_GE(peak->high_w, truth);
    EXPECT_LE(peak->low_w, figure);
    EXPECT_GE(peak->high_w, figure);
    // Each edge a millisecond stale at 2 kW: ±2 J over a window of the counter's resolution.
    const double window_s = static_cast<double>(grid.step_ns) * 1e-9;
    EXPECT_LE(peak->high_w - peak->low_w, 2 * (2.0 + 0.002) / window_s + 1e-6);
    // Where the report shows it: the run's power line, and its JSON.
    auto sum = summarize_run(r, r.runs()[0]);
    ASSERT_TRUE(sum && sum->power && sum->power->peak_bound);
    EXPECT_EQ(sum->power->peak_bound->low_w, peak->low_w);
}

// The pulse with its edges between samples (the truth's sum of steps then holds no rounding).
double between_samples(std::size_t, double t) {
    return t >= 4.005 && t < 4.305 ? 700 : 300;
}

// An 8 s run of `profile` on a node counter that changes every millisecond and states
// `limit` W, read every 10 ms; its data, its node grid, and that grid's distribution with
// the sensors' bounds (of the readings as `trim` leaves them: a counter lost mid-run).
struct CounterNodeRun {
    CounterNodeRun(double limit,
                   test::Profile profile,
                   const std::function<void(RunData&)>& trim = {})
        : b{fs.path("/n.jptrace"), {counter(limit)}} {
        b.run(test::make_run("a", 8, std::move(profile), 0.01));
        auto& reader = r.emplace(b.reader());
        auto loaded = load_run(reader, reader.runs()[0]);
        if (!loaded) {
            throw std::runtime_error(loaded.error().message());
        }
        d = std::move(*loaded);
        grid = node_grid(d, d.t0, d.t1);
        if (trim) {
            trim(d);
        }
        dist = power_distribution(grid);
        add_distribution_bounds(d, grid, dist);
    }
    static Channel counter(double limit) {
        auto node =
            test::channel("node", Domain::node, Quantity::energy, Provenance::measured, limit);
        node.update_ns = 1'000'000;
        return node;
    }
    test::FakeSysfs fs;
    test::TraceBuilder b;
    std::optional<trace::Reader> r; // the run's data refer to it
    RunData d;
    GridSeries grid;
    Distribution dist;
};

TEST(PeakBound, TheMovingPeaksAndPercentilesOfTheTruthLieInsideTheirBounds) {
    CounterNodeRun run{1000, between_samples};
    auto& r = *run.r;
    const auto& grid = run.grid;
    const auto& dist = run.dist;
    // The truth on the same grid: each window's mean, its 1 s moving peak and percentiles.
    std::vector<std::pair<double, double>> truth;
    std::vector<double> cuts{0};
    double total = 0;
    for (std::size_t i = 0; i < grid.watts.size(); ++i) {
        const double a = cuts.back();
        const double s = grid.seconds_of(i);
        truth.emplace_back(test::exact_joules(between_samples, 0, 0.01, a, a + s) / s, s);
        cuts.push_back(a + s);
        total += s;
    }
    const auto k = moving_steps(grid, 1.0);
    ASSERT_TRUE(k);
    double moving = 0;
    for (std::size_t i = 0; i + *k < cuts.size(); ++i) {
        moving =
            std::max(moving, test::exact_joules(between_samples, 0, 0.01, cuts[i], cuts[i + *k]) /
                                 (cuts[i + *k] - cuts[i]));
    }
    EXPECT_NEAR(moving, 420, 1e-6); // 300 ms at 700 W and 700 ms at 300 W
    ASSERT_TRUE(dist.peak_1s_bound && dist.peak_1s_w);
    EXPECT_LE(dist.peak_1s_bound->low_w, moving);
    EXPECT_GE(dist.peak_1s_bound->high_w, moving);
    EXPECT_LE(dist.peak_1s_bound->low_w, *dist.peak_1s_w);
    EXPECT_GE(dist.peak_1s_bound->high_w, *dist.peak_1s_w);
    EXPECT_LT(dist.peak_1s_bound->high_w - dist.peak_1s_bound->low_w, 10); // ±2 J over 1 s
    EXPECT_FALSE(dist.peak_60s_bound) << "an 8 s run has no 60 s window";
    std::ranges::sort(truth);
    for (const auto& [q, range, figure] : {std::tuple{0.50, dist.p50_bound, dist.p50_w},
                                           std::tuple{0.95, dist.p95_bound, dist.p95_w},
                                           std::tuple{0.99, dist.p99_bound, dist.p99_w}}) {
        const double t = percentile(truth, total, q);
        ASSERT_TRUE(range) << q;
        EXPECT_LE(range->low_w, t) << q;
        EXPECT_GE(range->high_w, t) << q;
        EXPECT_LE(range->low_w, figure) << q;
        EXPECT_GE(range->high_w, figure) << q;
    }
    // The report's JSON carries them.
    auto sum = summarize_run(r, r.runs()[0]);
    ASSERT_TRUE(sum && sum->power && sum->power->p95_bound);
    EXPECT_EQ(sum->power->p95_bound->high_w, dist.p95_bound->high_w);
    const auto j = run_to_json(*sum).at("power");
    EXPECT_EQ(j.at("p95_high_w").get<double>(), dist.p95_bound->high_w);
    EXPECT_FALSE(j.at("range_assumes_field").get<bool>()) << "counters: nothing assumed";
    EXPECT_FALSE(j.at("range_assumes_peak").get<bool>()) << "the channel states its maximum";
}

// A counter lost mid-run (its file replaced): nothing is known of it after its last reading
// but the most it can draw, so no second's range goes above that. The range at two cuts 1.5 s
// after the last reading differ by 1.5 s of it; a 1 s window's mean was taken from them alone
// and came out 1.5× the most it can draw (7.5 kW on a 5 kW domain in a new user's trial).
TEST(PeakBound, NoMovingPeakGoesAboveWhatTheCounterCanDraw) {
    const CounterNodeRun run{1000, pulse, [](RunData& d) { // the last reading at 3 s
                                 std::erase_if(d.series[0], [&](const TimedValue& v) {
                                     return v.t_ns > d.t0 + 3'000'000'000;
                                 });
                             }};
    const auto& dist = run.dist;
    const auto most = counter_limits(run.d, 0).max_watts;
    EXPECT_NEAR(most, 2000, 1e-9) << "twice the 1 kW it states";
    ASSERT_TRUE(dist.peak_1s_bound && dist.peak_bound);
    // 2 kW, and two millijoules' quantum for each of the second's windows.
    const auto windows = static_cast<double>(*moving_steps(run.grid, 1.0));
    EXPECT_LE(dist.peak_1s_bound->high_w, most + windows * 0.002 + 1e-9);
    EXPECT_GE(dist.peak_1s_bound->high_w, most - 1) << "a second after the loss is unknown";
    EXPECT_LE(dist.peak_1s_bound->low_w, dist.peak_1s_bound->high_w);
    EXPECT_LE(dist.peak_bound->high_w,
              most + 0.002 / (static_cast<double>(run.grid.step_ns) * 1e-9) + 1e-6);
}

// A counter that draws more than it states (its stated 100 W, so at most 200 W taken, under a
// 300-700 W load): the windows' highs are cut to 200 W while their cuts say more, and the
// moving peak's low was taken from the cuts: never above its high.
TEST(PeakBound, AMostTheTruthBreaksLeavesNoRangeUpsideDown) {
    const CounterNodeRun run{100, pulse};
    ASSERT_TRUE(run.dist.peak_1s_bound);
    EXPECT_LE(run.dist.peak_1s_bound->low_w, run.dist.peak_1s_bound->high_w);
}

// Readings a second apart (a floored daemon's) on a grid of 10 ms: each window's own low is
// near nothing, but the highest window's mean is never below the mean of them all (a new
// user's trial: a peak range from 2.7 W beside a phase averaging 52.7 W).
TEST(PeakBound, ThePeaksLowIsNeverBelowTheSpansMean) {
    const CounterNodeRun run{1000, pulse, [](RunData& d) {
                                 std::erase_if(d.series[0], [&](const TimedValue& v) {
                                     return (v.t_ns - d.t0) % 1'000'000'000 != 0 && v.t_ns != d.t1;
                                 });
                             }};
    ASSERT_LT(run.d.series[0].size(), 12U);
    const auto peak = node_peak_bound(run.d, run.grid);
    ASSERT_TRUE(peak);
    const double mean = test::exact_joules(pulse, 0, 0.01, 0, 8) / 8; // 315 W
    EXPECT_GE(peak->low_w, mean - 5) << "the whole span's low, less its edges' staleness";
    EXPECT_LE(peak->low_w, 700);
    EXPECT_GE(peak->high_w, 700);
}

TEST(PeakBound, APartsPeakIsBoundedByItsOwnCounter) {
    test::FakeSysfs fs;
    auto pkg = test::channel("cpu0.package", Domain::cpu_package, Quantity::energy,
                             Provenance::measured, 1000);
    pkg.update_ns = 1'000'000;
    test::TraceBuilder b{fs.path("/part.jptrace"), {pkg}};
    b.run(test::make_run("a", 8, pulse, 0.01));
    auto r = b.reader();
    auto sum = summarize_run(r, r.runs()[0]);
    ASSERT_TRUE(sum);
    const auto& parts = sum->parts;
    ASSERT_FALSE(parts.empty());
    const auto& part = parts.front();
    ASSERT_TRUE(part.peak_w && part.peak_bound) << part.name;
    EXPECT_LE(part.peak_bound->low_w, 700);
    EXPECT_GE(part.peak_bound->high_w, 700);
    EXPECT_LE(part.peak_bound->low_w, *part.peak_w);
    EXPECT_GE(part.peak_bound->high_w, *part.peak_w);
}

TEST(PeakBound, ANodePowerFieldsPeakHoldsTheTruthAndSaysWhatItAssumes) {
    PowerFieldRun power{"node", Domain::node, 800, 8, pulse};
    auto rp = power.b.reader();
    const auto d = load_run(rp, rp.runs()[0]);
    ASSERT_TRUE(d);
    const auto g = node_grid(*d, d->t0, d->t1);
    ASSERT_FALSE(g.watts.empty());
    const auto b = node_peak_bound(*d, g);
    ASSERT_TRUE(b) << "a power reading's windows are bounded";
    EXPECT_TRUE(b->assumed.field);
    double truth = 0; // the highest true mean over the grid's windows
    for (std::size_t i = 0; i < g.watts.size(); ++i) {
        const double a = static_cast<double>(g.t0 - d->t0) * 1e-9 +
                         static_cast<double>(i) * static_cast<double>(g.step_ns) * 1e-9;
        const double s = g.seconds_of(i);
        truth = std::max(truth, test::exact_joules(pulse, 0, 0.1, a, a + s) / s);
    }
    EXPECT_LE(b->low_w, truth);
    EXPECT_GE(b->high_w, truth);
    EXPECT_LE(b->low_w, *std::ranges::max_element(g.watts));
    EXPECT_GE(b->high_w, *std::ranges::max_element(g.watts));
    // The summary's 1 s and 60 s moving peaks and percentiles get ranges too, the 1 s one
    // holding the pulse's highest second.
    auto sum = summarize_run(rp, rp.runs()[0]);
    ASSERT_TRUE(sum && sum->power);
    ASSERT_TRUE(sum->power->peak_1s_bound);
    const double best_second = test::exact_joules(pulse, 0, 0.1, 3.5, 4.5);
    EXPECT_GE(sum->power->peak_1s_bound->high_w, best_second);
    EXPECT_LE(sum->power->peak_1s_bound->low_w, best_second) << "no grid's second beats it";
    EXPECT_TRUE(sum->power->p50_bound && sum->power->p50_bound->low_w <= 300 &&
                sum->power->p50_bound->high_w >= 300);
    // JSON says what the ranges rest on, as the text does.
    const auto j = run_to_json(*sum).at("power");
    EXPECT_TRUE(j.at("range_assumes_field").get<bool>()) << j.dump();
    EXPECT_FALSE(j.at("range_assumes_windows").get<bool>()) << "instantaneous readings";
    EXPECT_EQ(j.at("peak_low_w").get<double>(), b->low_w);
}

} // namespace
} // namespace jp::report
