// SPDX-License-Identifier: BSD-3-Clause
// sweep: the grid, placeholder substitution and the results table.
#include "fake_sysfs.hpp"
#include "report/sweep.hpp"
#include "trace_builder.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace jp::report {
namespace {

TEST(Sweep, ParamsParseAndFormAGridFirstParameterSlowest) {
    auto batch = parse_param("batch=512,1024");
    auto lr = parse_param("lr=0.1,0.01,0.001");
    ASSERT_TRUE(batch && lr);
    EXPECT_EQ(batch->name, "batch");
    EXPECT_EQ(lr->values.size(), 3U);
    const auto grid = grid_points({*batch, *lr});
    ASSERT_EQ(grid.size(), 6U);
    EXPECT_EQ(grid[0].label(), "batch=512,lr=0.1");
    EXPECT_EQ(grid[1].label(), "batch=512,lr=0.01");
    EXPECT_EQ(grid[3].label(), "batch=1024,lr=0.1");
    EXPECT_EQ(grid_points({*batch})[1].label(), "batch=1024");
    EXPECT_TRUE(grid_points({}).empty());
    for (const char* bad : {"batch", "=1,2", "batch=", "batch=1,,2", "9x=1", "a-b=1"}) {
        EXPECT_FALSE(parse_param(bad)) << bad;
    }
}

TEST(Sweep, AValueListedTwiceIsMeasuredOnce) {
    const auto b = parse_param("B=1,2,1,1,3,2");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->values, (std::vector<std::string>{"1", "2", "3"})) << "in first-listed order";
    EXPECT_EQ(b->repeated, (std::vector<std::string>{"1", "2"})) << "each named once";
    EXPECT_EQ(grid_points({*b}).size(), 3U);
}

TEST(Sweep, PlaceholdersAreSubstitutedInEveryArgument) {
    const auto grid = grid_points({*parse_param("batch=512"), *parse_param("lr=0.1")});
    const std::vector<std::string> argv{
        "train", "--batch", "{batch}",  "--lr={lr}", "out-{batch}-{lr}.log",
        "find",  "{}",      "{ batch }"};
    EXPECT_EQ(placeholders(argv), (std::vector<std::string>{"batch", "lr"}));
    auto cmd = substitute(argv, grid[0]);
    ASSERT_TRUE(cmd);
    EXPECT_EQ(*cmd, (std::vector<std::string>{"train", "--batch", "512", "--lr=0.1",
                                              "out-512-0.1.log", "find", "{}", "{ batch }"}));
    auto unknown = substitute({"train", "--epochs", "{epochs}"}, grid[0]);
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.error().detail.find("{epochs}"), std::string::npos) << unknown.error().detail;
}

TEST(Sweep, TraceFileNamesAreOrderedAndFileSafe) {
    const auto grid = grid_points({*parse_param("batch=512,4096"), *parse_param("opt=a/b")});
    EXPECT_EQ(trace_file_name(grid[0], 1, 2), "01-batch-512_opt-a_b.jptrace");
    EXPECT_EQ(trace_file_name(grid[1], 2, 120), "002-batch-4096_opt-a_b.jptrace");
}

TEST(Sweep, EnergyOptimalPointSkipsFailedPoints) {
    // Batch sizes 512..4096 as in the H100 study: larger batches cut training energy.
    test::FakeSysfs fs;
    test::TraceBuilder b{fs.path("/s.jptrace"),
                         {test::channel("node", Domain::node, Quantity::energy)}};
    const std::vector<std::pair<std::string, double>> points{
        {"batch=512", 400}, {"batch=1024", 200}, {"batch=2048", 150}, {"batch=4096", 100}};
    for (const auto& [label, seconds] : points) {
        b.run(test::make_run(label, seconds, test::flat(8000), 10));
    }
    auto r = b.reader();
    auto groups = *summarize_trace(r);
    std::vector<SweepPoint> results;
    for (std::size_t i = 0; i < points.size(); ++i) {
        results.push_back({points[i].first, {"train"}, b.path(), 0, groups[i]});
    }
    results[3].exit_code = 1; // the cheapest point failed: it cannot be the optimum
    ASSERT_EQ(energy_optimal(results), 2U);
    const auto text = format_sweep(results, fs.path("/dir"));
    EXPECT_NE(text.find("energy-optimal: batch=2048 (1200.000 kJ"), std::string::npos) << text;
    EXPECT_NE(text.find("failed (exit status 1)"), std::string::npos) << text;
    EXPECT_NE(text.find("1 of 4 points failed"), std::string::npos) << text;
    results[3].exit_code = 0;
    EXPECT_EQ(energy_optimal(results), 3U);
    EXPECT_NEAR(results[0].summary->node_energy_j.mean / results[3].summary->node_energy_j.mean,
                4.0, 1e-9)
        << "4× less energy at batch 4096";
    const auto j = sweep_json(results, fs.path("/dir"));
    EXPECT_EQ(j["energy_optimal"], "batch=4096");
    EXPECT_TRUE(j["energy_optimal_not_resolved_from"].empty()) << "4× apart: resolved";
    EXPECT_TRUE(j["energy_optimal_judged"].get<bool>()) << "one run each, a counter's bound";
    EXPECT_NEAR(j["points"][1]["node_energy_j"]["mean"].get<double>(), 200 * 8000.0, 1e-6);
    results.push_back({"batch=8192", {"train"}, b.path(), 137, std::nullopt});
    EXPECT_NE(format_sweep(results, fs.path("/dir")).find("batch=8192"), std::string::npos);
}

// Two points whose repeats overlap: the lower mean is named, and that it does not stand out
// from the other (a user's sweep named an optimum of 5.5 ± 6.6 J beside 11.7 ± 1.1 J).
TEST(Sweep, AnOptimumWithinTheRunsSpreadIsSaidNotResolved) {
    test::FakeSysfs fs;
    test::TraceBuilder b{fs.path("/s.jptrace"),
                         {test::channel("node", Domain::node, Quantity::energy)}};
    for (const double w : {100.0, 140.0}) {
        b.run(test::make_run("batch=512", 100, test::flat(w), 1));
    }
    for (const double w : {118.0, 126.0}) {
        b.run(test::make_run("batch=1024", 100, test::flat(w), 1));
    }
    b.run(test::make_run("batch=2048", 100, test::flat(1000), 1)); // far above: resolved
    auto r = b.reader();
    auto groups = *summarize_trace(r);
    ASSERT_EQ(groups.size(), 3U);
    std::vector<SweepPoint> results;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        results.push_back({groups[i].label, {"train"}, b.path(), 0, groups[i]});
    }
    ASSERT_EQ(energy_optimal(results), 0U) << "12.0 kJ against 12.2 kJ";
    EXPECT_EQ(not_resolved_from(results, 0), (std::vector<std::size_t>{1}));
    const auto text = format_sweep(results, fs.path("/dir"));
    EXPECT_NE(text.find("energy-optimal: batch=512"), std::string::npos) << text;
    EXPECT_NE(text.find("not resolved from batch=1024: they differ by less than the runs' "
                        "spread"),
              std::string::npos)
        << text;
    EXPECT_EQ(sweep_json(results, fs.path("/dir"))["energy_optimal_not_resolved_from"],
              nlohmann::json::array({"batch=1024"}));
}

} // namespace
} // namespace jp::report
