// SPDX-License-Identifier: BSD-3-Clause
// The HTML report's building blocks: decimation, the power grid, escaping,
// bars and axes.
#include "report/html/data.hpp"
#include "report/html/svg.hpp"
#include "trace_maker.hpp"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <set>

namespace jp::report {
namespace {

using html::Point;
using test::channel;
using test::k_sec;

// --- decimation ---

TEST(HtmlDecimate, SingleSampleSpikeAndDipSurvive) {
    constexpr int columns = 900;
    std::vector<Point> pts;
    const std::size_t n = 1'000'000;
    for (std::size_t i = 0; i < n; ++i) {
        pts.push_back({static_cast<double>(i) / static_cast<double>(n - 1), 100.0});
    }
    pts[123'457].y = 5000;
    pts[876'543].y = 3;
    const auto out = html::decimate_min_max(pts, 0, 1, columns);
    EXPECT_LE(out.size(), 2U * columns);
    EXPECT_GE(out.size(), static_cast<std::size_t>(columns));
    const auto [lo, hi] = std::ranges::minmax_element(out, {}, &Point::y);
    EXPECT_EQ(hi->y, 5000);
    EXPECT_DOUBLE_EQ(hi->x, pts[123'457].x) << "the spike keeps its own time";
    EXPECT_EQ(lo->y, 3);
    EXPECT_TRUE(std::ranges::is_sorted(out, {}, &Point::x));
}

TEST(HtmlDecimate, AtMostTwoPointsPerColumnForAnyInput) {
    std::mt19937 rng{42};
    std::uniform_real_distribution<double> u{-0.5, 1.5}; // some x outside [0, 1]
    std::normal_distribution<double> w{300, 80};
    for (int columns : {1, 7, 300, 900}) {
        html::MinMaxDecimator d{0, 1, columns};
        for (int i = 0; i < 200'000; ++i) {
            d.add(u(rng), w(rng)); // not even in order
        }
        d.add(0.5, NAN);
        d.add(INFINITY, 1);
        const auto out = d.finish();
        EXPECT_LE(out.size(), 2U * static_cast<std::size_t>(columns)) << columns;
        for (const auto& p : out) {
            EXPECT_TRUE(std::isfinite(p.x) && std::isfinite(p.y));
        }
    }
}

TEST(HtmlDecimate, KeepsMinAndMaxInTimeOrderAndFewPointsAsTheyAre) {
    const std::vector<Point> falling{{0.10, 5}, {0.11, 9}, {0.12, 1}, {0.13, 4}};
    const auto out = html::decimate_min_max(falling, 0, 1, 10); // all in column 1
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(out[0].y, 9); // the maximum came first
    EXPECT_EQ(out[1].y, 1);
    const std::vector<Point> sparse{{0.05, 1}, {0.55, 2}, {0.95, 3}};
    EXPECT_EQ(html::decimate_min_max(sparse, 0, 1, 10).size(), 3U);
    EXPECT_TRUE(html::decimate_min_max({}, 0, 1, 10).empty());
}

TEST(HtmlGrid, ChannelGridEqualsTheDirectMeanPerWindowInOnePass) {
    // Irregular timestamps, both quantities, steps finer and coarser than the samples.
    std::vector<TimedValue> energy;
    std::vector<TimedValue> power;
    std::mt19937 rng{7};
    std::uniform_int_distribution<std::int64_t> jitter{-30'000'000, 30'000'000};
    double e = 0;
    for (int i = 0; i <= 400; ++i) {
        const std::int64_t t = std::int64_t{i} * 100'000'000 + (i > 0 && i < 400 ? jitter(rng) : 0);
        const double watts = 200 + 50 * std::sin(i * 0.1) + (i == 200 ? 900 : 0);
        e += watts * 0.1;
        energy.push_back({t, e});
        power.push_back({t, watts});
    }
    const auto ce = channel("e", Domain::cpu_package, Quantity::energy);
    const auto cp = channel("p", Domain::node, Quantity::power);
    for (std::int64_t step : {50'000'000LL, 100'000'000LL, 333'000'000LL, 7'000'000'000LL}) {
        for (auto [t0, t1] : {std::pair<std::int64_t, std::int64_t>{0, 40 * k_sec},
                              std::pair<std::int64_t, std::int64_t>{1'234'567, 39 * k_sec + 5}}) {
            for (const auto* c : {&ce, &cp}) {
                const auto& pts = c == &ce ? energy : power;
                const auto got = channel_grid(*c, pts, t0, t1, step);
                const auto windows = static_cast<std::size_t>((t1 - t0 + step - 1) / step);
                const bool short_tail =
                    windows > 1 &&
                    t0 + static_cast<std::int64_t>(windows - 1) * step + step / 2 > t1;
                ASSERT_EQ(got.watts.size(), windows - (short_tail ? 1 : 0)) << step;
                for (std::size_t i = 0; i < got.watts.size(); ++i) {
                    const auto a = t0 + static_cast<std::int64_t>(i) * step;
                    const auto b = std::min(a + step, t1);
                    const double ref = window_watts(*c, pts, a, b);
                    EXPECT_NEAR(got.watts[i], ref, 1e-9 * std::abs(ref) + 1e-9)
                        << c->name << " step " << step << " window " << i;
                }
            }
        }
    }
}

TEST(HtmlEscape, EscapesMarkupAndRepairsBadUtf8) {
    EXPECT_EQ(html::escape(R"(<b a="x">&'</b>)"), "&lt;b a=&quot;x&quot;&gt;&amp;&#39;&lt;/b&gt;");
    EXPECT_EQ(html::escape("GPU ± 5 °C — ok"), "GPU ± 5 °C — ok");
    EXPECT_EQ(html::escape("a\xff"
                           "b"),
              "a\xEF\xBF\xBD"
              "b");
    EXPECT_EQ(html::escape("a\x01"
                           "b"),
              "a\xEF\xBF\xBD"
              "b");
    EXPECT_EQ(html::escape("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD"); // truncated sequence
}

TEST(HtmlBars, GroupNamesThatDoNotFitAlternateRowsAndAreCutWithTheFullNameKept) {
    html::BarsFigure f;
    f.id = "b";
    for (const char* g : {"energy-lstm/train@1-thread", "energy-lstm/predict@1-thread",
                          "health-vgg/train@1-thread", "health-vgg/predict@1-thread",
                          "energy-lstm/train@2-threads", "energy-lstm/predict@2-threads",
                          "health-vgg/train@2-threads", "health-vgg/predict@2-threads"}) {
        for (int run = 1; run <= 2; ++run) {
            html::Bar bar;
            bar.group = g;
            bar.label = "run " + std::to_string(run);
            bar.segments.push_back({"node", 1.0, "#000", false, "node"});
            bar.total = 1.0;
            f.bars.push_back(std::move(bar));
        }
    }
    const auto svg = html::stacked_bars_svg(f);
    // Every group is named in full in its tooltip; the rows alternate.
    for (const auto& b : f.bars) {
        EXPECT_NE(svg.find("<title>" + b.group + "</title>"), std::string::npos) << b.group;
    }
    std::set<std::string> rows;
    for (auto at = svg.find("class=\"group\""); at != std::string::npos;
         at = svg.find("class=\"group\"", at + 1)) {
        const auto y = svg.rfind("y=\"", at);
        rows.insert(svg.substr(y, svg.find('"', y + 3) - y));
    }
    EXPECT_EQ(rows.size(), 2U);
    // Short names stay on one row, uncut.
    html::BarsFigure small = f;
    for (auto& b : small.bars) {
        b.group = b.group.substr(0, 3);
    }
    const auto plain = html::stacked_bars_svg(small);
    EXPECT_EQ(plain.find("…"), std::string::npos);
}

// One bar of one segment whose total is `value`.
html::Bar one_bar(double value) {
    html::Bar bar;
    bar.group = "g";
    bar.label = "run 1";
    bar.segments.push_back({"node", value, "#000", false, "node"});
    bar.total = value;
    return bar;
}

TEST(HtmlBars, TotalsKeepAboutThreeSignificantDigits) {
    EXPECT_EQ(html::significant_decimals(0.145), 3);
    EXPECT_EQ(html::significant_decimals(1.5), 2);
    EXPECT_EQ(html::significant_decimals(61.4), 1);
    EXPECT_EQ(html::significant_decimals(6143.0), 0);
    html::BarsFigure f;
    f.id = "t";
    f.bars.push_back(one_bar(0.145));
    EXPECT_NE(html::stacked_bars_svg(f).find(">0.145</text>"), std::string::npos);
}

TEST(HtmlBars, TheSensorsBoundIsAWhiskerTheAxisMakesRoomFor) {
    html::BarsFigure f;
    f.id = "t";
    auto bar = one_bar(10);
    bar.total_low = 8;
    bar.total_high = 30; // far above the bar: the axis must reach it
    bar.bound_title = "8–30 J";
    f.bars.push_back(bar);
    const auto svg = html::stacked_bars_svg(f);
    const auto at = svg.find("<path class=\"bar-bound\"");
    ASSERT_NE(at, std::string::npos) << svg;
    EXPECT_NE(svg.find("<title>8–30 J</title>", at), std::string::npos);
    // The whisker's top (the V of its path) lies inside the plot: y >= the top margin.
    const auto v = svg.find('V', at);
    EXPECT_GE(std::stod(svg.substr(v + 1)), 0.0);
    EXPECT_NE(svg.find(">30<"), std::string::npos) << "an axis tick at or above 30: " << svg;
    bar.total_low = bar.total_high = std::numeric_limits<double>::quiet_NaN();
    f.bars = {bar};
    EXPECT_EQ(html::stacked_bars_svg(f).find("bar-bound"), std::string::npos);
}

TEST(HtmlBars, CuttingNeverSplitsACharacter) {
    const std::string name(40, 'x');
    const std::string accented = "é" + name;
    EXPECT_EQ(html::fit_text("short", 12, 200), "short");
    const auto cut = html::fit_text(accented, 12, 30);
    EXPECT_TRUE(cut.ends_with("…"));
    EXPECT_EQ(html::escape(cut), cut); // valid UTF-8 all through
    EXPECT_EQ(html::fit_text("éé", 12, 8), "…");
}

TEST(HtmlAxis, NiceTicks) {
    const auto a = html::nice_axis(0, 873, 6);
    EXPECT_EQ(a.lo, 0);
    EXPECT_EQ(a.hi, 1000);
    EXPECT_EQ(a.step, 200);
    EXPECT_EQ(a.label(400), "400");
    const auto b = html::nice_axis(0, 1, 4);
    EXPECT_EQ(b.label(0.25), "0.25");
}

} // namespace
} // namespace jp::report
