// SPDX-License-Identifier: BSD-3-Clause
// compare: runs side by side against a baseline, with the error of a
// runtime × constant-power estimate. The three traces follow the shape of
// Table 2 of Caspart et al. (HoreKa): the GPU run used about a quarter of the
// CPU-only run's energy while running about 7.4× faster; the CPU-mix run (all
// CPU cores of the GPU node) used about 1.7× the CPU-only energy.
#include "fake_sysfs.hpp"
#include "report/compare.hpp"
#include "report/format.hpp"
#include "trace_builder.hpp"

#include <gtest/gtest.h>

namespace jp::report {
namespace {

using test::channel;

struct Case {
    const char* label;
    double seconds;
    double watts;
};
// CPU-only: 740 s at 400 W = 296 kJ; GPU: 100 s (7.4× faster) at 740 W = 74 kJ (¼);
// CPU-mix: 629 s at 800 W = 503.2 kJ (1.7×).
constexpr Case k_cpu{"cpu-only", 740, 400};
constexpr Case k_gpu{"gpu", 100, 740};
constexpr Case k_mix{"cpu-mix", 629, 800};

class Table2 : public ::testing::Test {
protected:
    void SetUp() override {
        for (const auto& c : {k_cpu, k_gpu, k_mix}) {
            test::TraceBuilder b{fs.path(std::string{"/"} + c.label + ".jptrace"),
                                 {channel("node", Domain::node, Quantity::energy),
                                  channel("cpu0.package", Domain::cpu_package, Quantity::energy)}};
            for (double jitter : {-1.0, 1.0}) { // two repeats, ±1 W
                test::RunSpec spec;
                spec.label = c.label;
                spec.seconds = c.seconds;
                spec.step_s = 10;
                const double w = c.watts + jitter;
                spec.watts = [w](std::size_t ch, double) { return ch == 0 ? w : w / 2; };
                b.run(spec);
            }
            paths.push_back(b.path());
        }
    }
    test::FakeSysfs fs;
    std::vector<std::filesystem::path> paths;
};

TEST_F(Table2, RatiosToTheBaselineAndTheRuntimeEstimateError) {
    auto groups = summarize_traces(paths, {}, true);
    ASSERT_TRUE(groups) << groups.error().message();
    auto c = compare_groups(*groups, "");
    ASSERT_TRUE(c);
    ASSERT_EQ(c->entries.size(), 3U);
    EXPECT_EQ(c->baseline, 0U);
    const double e_cpu = k_cpu.seconds * k_cpu.watts;
    const double e_gpu = k_gpu.seconds * k_gpu.watts;
    EXPECT_NEAR(c->p_const_w, k_cpu.watts, 1e-9);
    const auto& gpu = c->entries[1];
    EXPECT_EQ(gpu.name, "gpu");
    ASSERT_TRUE(gpu.energy_ratio);
    EXPECT_NEAR(*gpu.energy_ratio, e_gpu / e_cpu, 1e-9);
    EXPECT_NEAR(*gpu.energy_ratio, 0.25, 1e-9) << "about one quarter of the energy";
    EXPECT_NEAR(1 / gpu.runtime_ratio.value_or(0), 7.4, 1e-9) << "7.4× faster";
    // Runtime × the CPU node's power would claim 40 kJ for the GPU run: −46 %.
    EXPECT_NEAR(gpu.estimate_j.value_or(0), k_gpu.seconds * k_cpu.watts, 1e-6);
    EXPECT_NEAR(gpu.error_percent.value_or(0), (k_gpu.seconds * k_cpu.watts - e_gpu) / e_gpu * 100,
                1e-9);
    const auto& mix = c->entries[2];
    EXPECT_NEAR(mix.energy_ratio.value_or(0), k_mix.seconds * k_mix.watts / e_cpu, 1e-9);
    EXPECT_NEAR(mix.energy_ratio.value_or(0), 1.7, 1e-9);
    EXPECT_NEAR(mix.error_percent.value_or(0), -50.0, 1e-9);
    EXPECT_NEAR(c->entries[0].error_percent.value_or(1), 0, 1e-9)
        << "the baseline estimates itself";
    EXPECT_EQ(c->entries[0].energy_ratio, 1.0) << "the baseline is itself";
    EXPECT_EQ(c->entries[0].group.runs.size(), 2U);
    EXPECT_NEAR(c->entries[0].group.node_avg_w.std, std::sqrt(2.0), 1e-9);

    const auto text = format_comparison(*c);
    EXPECT_NE(text.find("0.250"), std::string::npos) << text;
    EXPECT_NE(text.find("1.700"), std::string::npos) << text;
    EXPECT_NE(text.find("-45.9 %"), std::string::npos) << text;
    EXPECT_NE(text.find("-50.0 %"), std::string::npos) << text;
    const auto j = comparison_json(*c);
    EXPECT_NEAR(j["entries"][1]["energy_ratio"].get<double>(), 0.25, 1e-9);
    EXPECT_EQ(j["baseline"]["name"], "cpu-only");
}

TEST_F(Table2, BaselineByLabelOrPosition) {
    auto groups = *summarize_traces(paths, {}, true);
    auto by_label = compare_groups(groups, "gpu");
    ASSERT_TRUE(by_label);
    EXPECT_EQ(by_label->baseline, 1U);
    EXPECT_NEAR(by_label->entries[0].energy_ratio.value_or(0), 4.0, 1e-9);
    EXPECT_NEAR(by_label->p_const_w, k_gpu.watts, 1e-9);
    // The CPU-only run at the GPU run's power: 740 s × 740 W vs 296 kJ measured.
    EXPECT_NEAR(by_label->entries[0].error_percent.value_or(0),
                (k_cpu.seconds * k_gpu.watts - k_cpu.seconds * k_cpu.watts) /
                    (k_cpu.seconds * k_cpu.watts) * 100,
                1e-9);
    auto by_index = compare_groups(groups, "3");
    ASSERT_TRUE(by_index);
    EXPECT_EQ(by_index->baseline, 2U);
    auto unknown = compare_groups(groups, "tpu");
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.error().message().find("cpu-only, gpu, cpu-mix"), std::string::npos)
        << unknown.error().message();
    EXPECT_FALSE(compare_groups(groups, "4"));
    EXPECT_FALSE(compare_groups({}, ""));
}

TEST(Compare, RepeatedLabelsAreNamedByTheirTrace) {
    test::FakeSysfs fs;
    std::vector<std::filesystem::path> paths;
    for (const char* name : {"/first.jptrace", "/second.jptrace"}) {
        test::TraceBuilder b{fs.path(name), {channel("node", Domain::node, Quantity::energy)}};
        b.run(test::make_run("default", 10, test::flat(100)));
        paths.push_back(b.path());
    }
    auto c = compare_groups(*summarize_traces(paths, {}, true), "second:default");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->entries[0].name, "first:default");
    EXPECT_EQ(c->baseline, 1U);
}

// A baseline that used no energy (a job of `true`, a damaged run): no ratio to it means
// anything, nor an estimate from its power of 0. Each is n/a (null), never 0.000.
TEST(Compare, ABaselineOfNoEnergyGivesNoRatioRatherThanZero) {
    test::FakeSysfs fs;
    test::TraceBuilder b{fs.path("/z.jptrace"), {channel("node", Domain::node, Quantity::energy)}};
    b.run(test::make_run("nothing", 10, test::flat(0), 1));
    b.run(test::make_run("busy", 10, test::flat(100), 1));
    auto r = b.reader();
    auto groups = summarize_trace(r);
    ASSERT_TRUE(groups);
    const auto c = compare_groups(*groups, "nothing");
    ASSERT_TRUE(c);
    ASSERT_EQ(c->entries[0].name, "nothing") << format_comparison(*c);
    EXPECT_EQ(c->entries[0].energy_ratio, 1.0);
    EXPECT_EQ(c->entries[1].energy_ratio, std::nullopt);
    EXPECT_NEAR(c->entries[1].runtime_ratio.value_or(0), 1.0, 1e-9) << "runtimes still compare";
    EXPECT_EQ(c->entries[1].estimate_j, std::nullopt);
    const auto text = format_comparison(*c);
    EXPECT_NE(text.find("n/a"), std::string::npos) << text;
    const auto j = comparison_json(*c);
    EXPECT_TRUE(j["entries"][1]["energy_ratio"].is_null()) << j;
    EXPECT_TRUE(j["entries"][1]["estimate_j"].is_null()) << j;
}

// Each note names whom it is about first, after a dash (names may hold ':'): a node that is
// the sum of its parts, and a group whose every run failed, with its figures said to be theirs.
TEST(Compare, NotesNameTheirGroupsFirstAndFailedRunsAreSaid) {
    test::FakeSysfs fs;
    test::TraceBuilder b{fs.path("/n.jptrace"),
                         {channel("cpu0.package", Domain::cpu_package, Quantity::energy)}};
    b.run(test::make_run("lr:0.1", 10, test::flat(100)));
    auto failing = test::make_run("broken", 10, test::flat(100));
    failing.exit_code = 3;
    b.run(failing);
    auto r = b.reader();
    auto groups = summarize_trace(r);
    ASSERT_TRUE(groups);
    const auto c = compare_groups(*groups, "");
    ASSERT_TRUE(c);
    const auto text = format_comparison(*c);
    EXPECT_NE(text.find("note: lr:0.1, broken — the node energy is a lower bound, the sum of its "
                        "parts"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("note: broken — 1 run, failed (exit status 3): its figures are of "
                        "failed runs"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("job's share"), std::string::npos) << "no share, no such note: " << text;
    EXPECT_NE(text.find("10.000 s"), std::string::npos) << "runtime as report gives it: " << text;
}

// Runs pooled under one label from a trace with a node meter and one without: the mean rests
// on a lower bound, whichever run comes first. The notes, the JSON and the footprint say so.
TEST(Compare, AGroupIsALowerBoundWhereAnyRunIs) {
    test::FakeSysfs fs;
    test::TraceBuilder metered{fs.path("/metered.jptrace"),
                               {channel("node", Domain::node, Quantity::energy),
                                channel("cpu0.package", Domain::cpu_package, Quantity::energy)}};
    metered.run(test::make_run("x", 10, test::flat(100)));
    test::TraceBuilder parts{fs.path("/parts.jptrace"),
                             {channel("cpu0.package", Domain::cpu_package, Quantity::energy)}};
    parts.run(test::make_run("x", 10, test::flat(100)));
    const std::vector<std::filesystem::path> paths{metered.path(), parts.path()};
    auto groups = summarize_traces(paths);
    ASSERT_TRUE(groups && groups->size() == 1U);
    ASSERT_FALSE((*groups)[0].runs.front().node.lower_bound) << "the metered run comes first";
    const auto c = compare_groups(*groups, "");
    ASSERT_TRUE(c);
    EXPECT_NE(format_comparison(*c).find("note: x — the node energy is a lower bound"),
              std::string::npos)
        << format_comparison(*c);
    EXPECT_EQ(comparison_json(*c)["entries"][0]["lower_bound"], true);
    const auto f = group_footprint((*groups)[0], CarbonConfig{{}, {}, 0.25, "EUR"});
    ASSERT_TRUE(f);
    EXPECT_TRUE(f->lower_bound);
    EXPECT_FALSE(f->estimated);
}

} // namespace
} // namespace jp::report
