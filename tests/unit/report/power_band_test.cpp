// SPDX-License-Identifier: BSD-3-Clause
// The band of the HTML profile (report/power_band.hpp): where the sensors' bounds put
// the node's mean power window by window; the truth inside every window, and the band
// as narrow as the counter's own limits make it when windows end at its readings; and the
// node's peak, whose truth lies inside the highest of the windows' bounds.
#include "fake_sysfs.hpp"
#include "report/power_band.hpp"
#include "report/series.hpp"
#include "report/summary.hpp"
#include "report/window.hpp"
#include "trace_builder.hpp"

#include <algorithm>
#include <gtest/gtest.h>

namespace jp::report {
namespace {

double step_up(std::size_t, double t) {
    return t < 5.05 ? 300 : 500; // between two readings: no doubt which side a reading is on
}

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

TEST(PowerBand, NoBandWhereTheNodesEnergyHasNoBound) {
    test::FakeSysfs fs;
    test::TraceBuilder power{fs.path("/p.jptrace"),
                             {test::channel("node", Domain::node, Quantity::power)}};
    power.run(test::make_run("a", 5, step_up, 0.1));
    auto rp = power.reader();
    EXPECT_TRUE(node_power_band(*load_run(rp, rp.runs()[0]), 20).empty()) << "a power reading";
    test::TraceBuilder model{fs.path("/m.jptrace"),
                             {test::channel("cpu0.package", Domain::cpu_package, Quantity::energy)},
                             {{"node.rest_watts", "80"}}};
    model.run(test::make_run("a", 5, step_up, 0.1));
    auto rm = model.reader();
    EXPECT_TRUE(node_power_band(*load_run(rm, rm.runs()[0]), 20).empty()) << "a rest model";
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

TEST(PeakBound, NoneWhereTheNodesEnergyHasNoBound) {
    test::FakeSysfs fs;
    test::TraceBuilder power{fs.path("/p.jptrace"),
                             {test::channel("node", Domain::node, Quantity::power)}};
    power.run(test::make_run("a", 5, pulse, 0.1));
    auto rp = power.reader();
    const auto d = load_run(rp, rp.runs()[0]);
    ASSERT_TRUE(d);
    EXPECT_FALSE(node_peak_bound(*d, node_grid(*d, d->t0, d->t1))) << "a power reading";
}

} // namespace
} // namespace jp::report
