// SPDX-License-Identifier: BSD-3-Clause
// The run's samples with running integrals: the same figures as the direct
// trapezoid rule and as node_power_series, only cheaper per window.
#include "fake_sysfs.hpp"
#include "report/series.hpp"
#include "report/window.hpp"
#include "trace_builder.hpp"

#include <gtest/gtest.h>

namespace jp::report {
namespace {

double wobble(std::size_t ch, double t) {
    return ch == 0 ? 700 + 150 * std::sin(t) : 200 + 10 * t;
}

TEST(Window, IntegralsMatchTheTrapezoidRuleAndGridsMatchNodePowerSeries) {
    test::FakeSysfs fs;
    // A power-metered node (samples every 0.37 s, a short last step) and a RAPL package.
    test::TraceBuilder b{fs.path("/w.jptrace"),
                         {test::channel("node", Domain::node, Quantity::power),
                          test::channel("cpu0.package", Domain::cpu_package, Quantity::energy)}};
    b.run(test::make_run("a", 10.05, wobble, 0.37));
    auto r = b.reader();
    const auto& run = r.runs()[0];
    auto d = load_run(r, run);
    ASSERT_TRUE(d);
    const auto node = *r.samples(run.id, 0);
    for (const auto& [a, z] : {std::pair{0.0, 10.05}, {1.2, 3.3}, {-1.0, 0.5}, {9.9, 12.0}}) {
        const auto t0 = run.start_ns + static_cast<std::int64_t>(a * 1e9);
        const auto t1 = run.start_ns + static_cast<std::int64_t>(z * 1e9);
        EXPECT_NEAR(integral_of(*d, 0, t0, t1), trapezoid_joules(node.points, t0, t1), 1e-6)
            << a << ".." << z;
    }
    const auto grid = node_grid(*d, d->t0, d->t1);
    const auto series = node_power_series(r, run);
    ASSERT_TRUE(series);
    EXPECT_EQ(grid.step_ns, series->step_ns);
    EXPECT_EQ(grid.t1, series->t1);
    ASSERT_EQ(grid.watts.size(), series->watts.size());
    for (std::size_t i = 0; i < grid.watts.size(); ++i) {
        EXPECT_NEAR(grid.watts[i], series->watts[i], 1e-6) << i;
    }
}

TEST(Window, WithoutANodeMeterTheGridIsThePartsPlusTheRestModel) {
    test::FakeSysfs fs;
    test::TraceBuilder b{fs.path("/p.jptrace"),
                         {test::channel("cpu0.package", Domain::cpu_package, Quantity::energy),
                          test::channel("gpu0", Domain::gpu, Quantity::power)},
                         {{"node.rest_watts", "80"}}};
    b.run(test::make_run("a", 6, wobble, 0.5));
    auto r = b.reader();
    auto d = load_run(r, r.runs()[0]);
    const auto grid = node_grid(*d, d->t0, d->t1);
    const auto series = node_power_series(r, r.runs()[0]);
    ASSERT_EQ(grid.watts.size(), series->watts.size());
    for (std::size_t i = 0; i < grid.watts.size(); ++i) {
        EXPECT_NEAR(grid.watts[i], series->watts[i], 1e-6) << i;
    }
    EXPECT_GT(grid.watts.front(), 80 + 700 - 150); // parts + rest
}

} // namespace
} // namespace jp::report
