// SPDX-License-Identifier: BSD-3-Clause
// One run has one peak: the table's, the power line's and the HTML's are the
// same figure, for a node meter that reports power and for one that counts
// energy.
#include "fake_sysfs.hpp"
#include "report/html/data.hpp"
#include "report/html/report.hpp"
#include "report/summary.hpp"
#include "trace_builder.hpp"

#include <fstream>
#include <gtest/gtest.h>

namespace jp::report {
namespace {

using test::channel;
using test::make_run;
using test::TraceBuilder;

TEST(Peak, TheTableThePowerLineAndTheHtmlShowOnePeak) {
    for (auto q : {Quantity::power, Quantity::energy}) {
        test::FakeSysfs fs;
        TraceBuilder b{fs.path("/p.jptrace"), {channel("node", Domain::node, q)}};
        // 500 W with one 900 W second, and a part that draws 100 W.
        b.run(make_run("x", 20, [](std::size_t, double t) { return t == 7 ? 900.0 : 500.0; }));
        const auto groups = summarize_traces(std::vector{b.path()});
        ASSERT_TRUE(groups) << groups.error().message();
        const auto& run = groups->front().runs.front();
        ASSERT_TRUE(run.node.peak_w);
        ASSERT_TRUE(run.power);
        EXPECT_DOUBLE_EQ(*run.node.peak_w, run.power->peak_w) << to_string(q);
        EXPECT_DOUBLE_EQ(groups->front().node_peak_w.mean, groups->front().power->peak_w);
        auto reader = b.reader();
        const auto profile = html::load_profile(reader, run.run, {});
        ASSERT_TRUE(profile);
        EXPECT_DOUBLE_EQ(profile->distribution.peak_w, run.power->peak_w) << to_string(q);
    }
}

// The distribution's mean is the run's average power, its energy over its runtime, even
// where the windows leave out a tail shorter than half of one (a user's 0.85 s run on
// 0.1 s windows showed a mean of 150.0 W beside 141.9 W on average).
TEST(Peak, TheMeanPowerIsTheRunsAverageWhateverTheWindowsLeaveOut) {
    test::FakeSysfs fs;
    TraceBuilder b{fs.path("/m.jptrace"), {channel("node", Domain::node, Quantity::energy)}};
    b.run(make_run(
        "x", 0.83, [](std::size_t, double t) { return t < 0.75 ? 150.0 : 0.0; }, 0.1));
    const auto groups = summarize_traces(std::vector{b.path()});
    ASSERT_TRUE(groups) << groups.error().message();
    const auto& run = groups->front().runs.front();
    ASSERT_TRUE(run.power);
    EXPECT_NEAR(run.power->mean_w, run.node.avg_w, 1e-9);
    EXPECT_NEAR(run.node.avg_w, 120.0 / 0.83, 1e-6) << "120 J over 0.83 s";
    // The HTML's distribution says the same mean.
    const auto html = fs.path("/m.html");
    ASSERT_TRUE(write_html_report({b.path()}, html, {}));
    std::ifstream in{html};
    const std::string page{std::istreambuf_iterator<char>{in}, {}};
    EXPECT_NE(page.find("Mean 144.6 W"), std::string::npos);
    EXPECT_EQ(page.find("Mean 150.0 W"), std::string::npos) << "the windows' mean";
}

} // namespace
} // namespace jp::report
