// SPDX-License-Identifier: BSD-3-Clause
// Odd input a review found: readings that are not numbers (a hand-made or damaged trace)
// and a node meter that reads less than its parts.
#include "fake_sysfs.hpp"
#include "report/format.hpp"
#include "report/summary.hpp"
#include "trace_builder.hpp"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <regex>

namespace jp::report {
namespace {

TEST(SummaryOddInput, AReadingThatIsNotANumberIsNoReading) {
    test::FakeSysfs fs;
    test::TraceBuilder b{fs.path("/odd.jptrace"),
                         {test::channel("cpu0.package", Domain::cpu_package, Quantity::energy)}};
    // From 6 s on the power is NaN, so every cumulative reading after it is too.
    b.run(test::make_run("x", 10, [](std::size_t, double t) {
        return t < 6 ? 100.0 : std::numeric_limits<double>::quiet_NaN();
    }));
    auto r = b.reader();
    const auto s = summarize_run(r, r.runs().front());
    ASSERT_TRUE(s) << s.error().message();
    EXPECT_TRUE(std::isfinite(s->node.energy_j));
    ASSERT_TRUE(s->node.bound);
    EXPECT_TRUE(std::isfinite(s->node.bound->low) && std::isfinite(s->node.bound->high));
    EXPECT_LT(s->node.bound->high, 1e6);
    const auto text = format_text({aggregate_runs("x", {*s})}, FormatOptions{});
    EXPECT_FALSE(std::regex_search(text, std::regex{R"(\b-?nan\b|\binf\b)"})) << text;
}

TEST(SummaryOddInput, ANodeMeterBelowItsPartsIsSaidToDisagree) {
    test::FakeSysfs fs;
    auto node = test::channel("node", Domain::node, Quantity::energy, Provenance::measured, 500);
    auto pkg = test::channel("cpu0.package", Domain::cpu_package, Quantity::energy,
                             Provenance::measured, 500);
    node.update_ns = pkg.update_ns = 1'000'000;
    test::TraceBuilder b{fs.path("/less.jptrace"), {node, pkg}};
    b.run(test::make_run(
        "x", 10, [](std::size_t ch, double) { return ch == 0 ? 100.0 : 300.0; }, 0.1));
    auto r = b.reader();
    const auto s = summarize_run(r, r.runs().front());
    ASSERT_TRUE(s && s->rest && s->rest->bound);
    EXPECT_LT(s->rest->bound->high, 0);
    EXPECT_TRUE(std::ranges::any_of(s->notes, [](const std::string& n) {
        return n.starts_with("the node meter read less than the sum of its parts");
    }));
}

} // namespace
} // namespace jp::report
