#include "fake_sysfs.hpp"
#include "report/html.hpp"
#include "report/html_data.hpp"
#include "report/html_svg.hpp"
#include "trace_maker.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <set>
#include <sstream>

namespace jp::report {
namespace {

using html::Point;
using test::channel;
using test::ChannelSpec;
using test::k_sec;
using test::RunSpec;

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in{p, std::ios::binary};
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::size_t count(const std::string& hay, std::string_view needle) {
    std::size_t n = 0;
    for (auto pos = hay.find(needle); pos != std::string::npos;
         pos = hay.find(needle, pos + needle.size())) {
        ++n;
    }
    return n;
}

// Number of points in each <polyline points="..."> of the page.
std::vector<std::size_t> polyline_sizes(const std::string& page) {
    std::vector<std::size_t> out;
    const std::string_view tag = "<polyline";
    for (auto pos = page.find(tag); pos != std::string::npos; pos = page.find(tag, pos + 1)) {
        const auto a = page.find("points=\"", pos);
        const auto b = page.find('"', a + 8);
        const auto pts = page.substr(a + 8, b - a - 8);
        out.push_back(static_cast<std::size_t>(std::ranges::count(pts, ',')));
    }
    return out;
}

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

TEST(HtmlBars, TotalsKeepAboutThreeSignificantDigits) {
    EXPECT_EQ(html::significant_decimals(0.145), 3);
    EXPECT_EQ(html::significant_decimals(1.5), 2);
    EXPECT_EQ(html::significant_decimals(61.4), 1);
    EXPECT_EQ(html::significant_decimals(6143.0), 0);
    html::BarsFigure f;
    f.id = "t";
    html::Bar bar;
    bar.group = "g";
    bar.label = "run 1";
    bar.segments.push_back({"node", 0.145, "#000", false, "node"});
    bar.total = 0.145;
    f.bars.push_back(bar);
    EXPECT_NE(html::stacked_bars_svg(f).find(">0.145</text>"), std::string::npos);
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

// --- the page ---

class HtmlReport : public ::testing::Test {
protected:
    test::FakeSysfs fs;
    std::filesystem::path trace = fs.path("/job.jptrace");
    std::filesystem::path out = fs.path("/report.html");

    // A GPU node as in the study: node meter, CPU package, DRAM estimate, GPU;
    // training then inference marked by the job, a checkpoint in between.
    static std::vector<ChannelSpec> gpu_node() {
        auto gpu = channel("gpu0", Domain::gpu, Quantity::energy);
        gpu.limit_watts = 700;
        return {
            {channel("node", Domain::node, Quantity::energy),
             [](double t) { return t < 60 ? 900.0 : 500.0; }},
            {channel("cpu0.package", Domain::cpu_package, Quantity::energy),
             [](double) { return 150.0; }},
            {channel("dram.estimate", Domain::dram, Quantity::power, Provenance::estimated),
             [](double) { return 20.0; }},
            {gpu, [](double t) { return t < 60 ? 600.0 : 250.0; }},
        };
    }
    static std::vector<trace::Marker> phases() {
        return {{0, 0, "begin", "training"},
                {0, 60 * k_sec, "end", "training"},
                {0, 60 * k_sec, "begin", "inference"},
                {0, 90 * k_sec, "end", "inference"},
                {0, 45 * k_sec, "point", "checkpoint"}};
    }
};

TEST_F(HtmlReport, WritesOneSelfContainedPageWithTheFigures) {
    ASSERT_TRUE(test::make_trace(trace, gpu_node(),
                                 {{"train", "measure", "python train.py", 90, 0.5, phases()}},
                                 {{"node.rated_watts", "1200"}, {"host", "gpu-node-1"}}));
    ASSERT_TRUE(write_html_report({trace}, out, {}));
    const auto page = slurp(out);
    ASSERT_FALSE(page.empty());
    EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0U);
    EXPECT_NE(page.find("</html>"), std::string::npos);
    // Self-contained: nothing loaded from anywhere.
    EXPECT_EQ(page.find("http"), std::string::npos);
    EXPECT_EQ(page.find("src="), std::string::npos);
    EXPECT_EQ(page.find("<link"), std::string::npos);
    EXPECT_EQ(page.find("@import"), std::string::npos);
    EXPECT_EQ(count(page, "<script"), 1U);
    // The three figures: profile, stacked energy, distribution.
    EXPECT_EQ(count(page, "class=\"jp-profile\""), 1U);
    EXPECT_EQ(count(page, "class=\"jp-bars\""), 1U);
    EXPECT_EQ(count(page, "class=\"jp-hist\""), 1U);
    EXPECT_EQ(count(page, "<polyline"), 4U) << "node and three parts";
    EXPECT_NE(page.find("Fraction of runtime"), std::string::npos);
    EXPECT_NE(page.find("Power [W]"), std::string::npos);
    EXPECT_NE(page.find("Energy [kJ]"), std::string::npos);
    EXPECT_NE(page.find("Node power [W]"), std::string::npos);
    for (const char* name : {"cpu0.package", "gpu0", "dram.estimate (estimated)"}) {
        EXPECT_NE(page.find(name), std::string::npos) << name;
    }
    // Phases shaded and named; the point marker drawn.
    EXPECT_NE(page.find(">training<title>"), std::string::npos);
    EXPECT_NE(page.find(">inference<title>"), std::string::npos);
    EXPECT_NE(page.find(">checkpoint</text>"), std::string::npos);
    // Node energy in the phases: 900 W × 60 s and 500 W × 30 s.
    EXPECT_NE(page.find("<td>54.000</td>"), std::string::npos);
    EXPECT_NE(page.find("<td>15.000</td>"), std::string::npos);
    // Distribution against the rated power.
    EXPECT_NE(page.find("Peak 900 W = 75 % of rated 1200 W"), std::string::npos);
    EXPECT_NE(page.find("rated 1200 W"), std::string::npos);
    EXPECT_NE(page.find("p95 900 W"), std::string::npos);
    // Tables: node 900 W × 60 s + 500 W × 30 s = 69 kJ; runtime; provenance.
    EXPECT_NE(page.find("Consumption [kJ]"), std::string::npos);
    EXPECT_NE(page.find("Average power [W]"), std::string::npos);
    EXPECT_NE(page.find("Runtime [hh:mm:ss]"), std::string::npos);
    EXPECT_NE(page.find("69.000"), std::string::npos);
    EXPECT_NE(page.find("00:01:30"), std::string::npos);
    EXPECT_NE(page.find("<span class=\"prov estimated\">estimated</span>"), std::string::npos);
    EXPECT_NE(page.find("<span class=\"prov measured\">measured</span>"), std::string::npos);
    EXPECT_NE(page.find("rest of node (estimated)"), std::string::npos) << "node − Σ parts, one "
                                                                           "of them estimated";
    EXPECT_NE(page.find("hatched = estimated"), std::string::npos);
    EXPECT_NE(page.find("gpu-node-1"), std::string::npos);
    EXPECT_NE(page.find("python train.py"), std::string::npos);
}

TEST_F(HtmlReport, EscapesEveryStringFromTheTrace) {
    auto specs = gpu_node();
    specs[1].channel.name = "cpu<0>&\"pkg\"";
    std::vector<trace::Marker> markers{{0, 0, "begin", "<img onerror=x>"},
                                       {0, 5 * k_sec, "end", "<img onerror=x>"},
                                       {0, 6 * k_sec, "point", "a'b"}};
    ASSERT_TRUE(test::make_trace(trace, specs,
                                 {{"<script>alert(1)</script>", "measure",
                                   "sh -c 'x < y && echo \"</code>\"'", 10, 1, markers}},
                                 {{"host", "<h1>host</h1>"}}));
    ASSERT_TRUE(write_html_report({trace}, out, {}));
    const auto page = slurp(out);
    EXPECT_EQ(page.find("<script>alert"), std::string::npos);
    EXPECT_EQ(page.find("<img"), std::string::npos);
    EXPECT_EQ(page.find("<h1>host"), std::string::npos);
    EXPECT_EQ(page.find("cpu<0>"), std::string::npos);
    EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(page.find("cpu&lt;0&gt;&amp;&quot;pkg&quot;"), std::string::npos);
    EXPECT_NE(page.find("&lt;img onerror=x&gt;"), std::string::npos);
    EXPECT_NE(page.find("a&#39;b"), std::string::npos);
    EXPECT_NE(page.find("x &lt; y &amp;&amp; echo &quot;&lt;/code&gt;&quot;"), std::string::npos);
    EXPECT_EQ(count(page, "<script"), 1U);
}

TEST_F(HtmlReport, RepeatsGetARunSelectorAndLabelsTheirOwnSections) {
    ASSERT_TRUE(test::make_trace(trace, gpu_node(),
                                 {{"train", "baseline", "", 5, 1, {}},
                                  {"train", "warmup", "./t", 5, 1, {}},
                                  {"train", "measure", "./t", 10, 1, {}},
                                  {"train", "measure", "./t", 12, 1, {}},
                                  {"train", "measure", "./t", 14, 1, {}},
                                  {"infer", "measure", "./i", 6, 1, {}}}));
    ASSERT_TRUE(write_html_report({trace}, out, {}));
    const auto page = slurp(out);
    EXPECT_EQ(count(page, "class=\"jp-run-select\""), 1U) << "only the label with repeats";
    EXPECT_EQ(count(page, "class=\"run-panel\""), 4U);
    EXPECT_EQ(count(page, "class=\"jp-profile\""), 4U);
    EXPECT_EQ(count(page, "class=\"jp-bars\""), 1U) << "one energy figure per trace";
    EXPECT_EQ(count(page, "<g class=\"bar\">"), 4U) << "one bar per measured run";
    EXPECT_NE(page.find(" ± "), std::string::npos);
    EXPECT_NE(page.find("Idle baseline"), std::string::npos);
    EXPECT_NE(page.find(">infer<"), std::string::npos);
}

TEST_F(HtmlReport, WithoutANodeMeterTheNodeIsTheEstimatedSumOfParts) {
    auto specs = gpu_node();
    specs.erase(specs.begin());
    specs[2].channel.limit_watts.reset(); // no rating known at all
    ASSERT_TRUE(test::make_trace(trace, specs, {{"job", "measure", "./j", 20, 1, {}}},
                                 {{"node.rest_watts", "80"}}));
    ASSERT_TRUE(write_html_report({trace}, out, {}));
    const auto page = slurp(out);
    EXPECT_NE(page.find("node (sum of parts + rest model) (estimated)"), std::string::npos);
    // 150 + 20 + 600 + 80 W.
    EXPECT_NE(page.find("peak 850 W"), std::string::npos);
    EXPECT_NE(page.find("Rated power not known"), std::string::npos);
    EXPECT_NE(page.find("not known <span class=\"muted\">(set [node] rated_watts"),
              std::string::npos);
}

TEST_F(HtmlReport, LongTracesAreDecimatedToThePixelWidth) {
    // One hour at 20 Hz with a single 5 kW sample in the node's power.
    auto specs = gpu_node();
    specs[0].watts = [](double t) { return std::abs(t - 1234.5) < 0.01 ? 5000.0 : 800.0; };
    ASSERT_TRUE(test::make_trace(trace, specs, {{"long", "measure", "./l", 3600, 0.05, {}}}));
    HtmlOptions opt;
    opt.plot_width_px = 600;
    opt.threshold_w = 850;
    ASSERT_TRUE(write_html_report({trace}, out, opt));
    const auto page = slurp(out);
    const auto sizes = polyline_sizes(page);
    ASSERT_EQ(sizes.size(), 4U);
    for (auto n : sizes) {
        EXPECT_LE(n, 2U * 600U);
        EXPECT_GE(n, 600U);
    }
    EXPECT_LT(page.size(), 400'000U);
    EXPECT_NE(page.find("peak 5000.0 W"), std::string::npos) << "the spike survives";
    EXPECT_NE(page.find("Above 850 W for"), std::string::npos);
}

TEST_F(HtmlReport, SeveralTracesInOnePage) {
    const auto second = fs.path("/other.jptrace");
    ASSERT_TRUE(test::make_trace(trace, gpu_node(), {{"a", "measure", "./a", 10, 1, {}}}));
    ASSERT_TRUE(test::make_trace(second, gpu_node(), {{"b", "measure", "./b", 10, 1, {}}}));
    ASSERT_TRUE(write_html_report({trace, second}, out, {}));
    const auto page = slurp(out);
    EXPECT_NE(page.find("<h2>job.jptrace</h2>"), std::string::npos);
    EXPECT_NE(page.find("<h2>other.jptrace</h2>"), std::string::npos);
    EXPECT_EQ(count(page, "class=\"jp-profile\""), 2U);
}

TEST_F(HtmlReport, ATraceWithoutMeasuredRunsSaysSo) {
    ASSERT_TRUE(test::make_trace(trace, gpu_node(), {}));
    ASSERT_TRUE(write_html_report({trace}, out, {}));
    EXPECT_NE(slurp(out).find("holds no measured run"), std::string::npos);
}

TEST_F(HtmlReport, AMissingTraceIsAnErrorNamingIt) {
    ASSERT_TRUE(test::make_trace(trace, gpu_node(), {{"a", "measure", "./a", 5, 1, {}}}));
    const auto missing = fs.path("/nope.jptrace");
    auto r = write_html_report({trace, missing}, out, {});
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find(missing.string()), std::string::npos) << r.error().message();
    EXPECT_FALSE(std::filesystem::exists(out)) << "nothing written on error";
    // Not a trace at all.
    std::ofstream{fs.path("/junk.jptrace")} << "not sqlite";
    r = write_html_report({fs.path("/junk.jptrace")}, out, {});
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("junk.jptrace"), std::string::npos) << r.error().message();
    EXPECT_FALSE(write_html_report({}, out, {}));
}

TEST_F(HtmlReport, AnUnwritableOutputIsAnErrorNamingIt) {
    ASSERT_TRUE(test::make_trace(trace, gpu_node(), {{"a", "measure", "./a", 5, 1, {}}}));
    // Under a regular file: fails for root too.
    const auto bad = trace / "report.html";
    auto r = write_html_report({trace}, bad, {});
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find(bad.string()), std::string::npos) << r.error().message();
    const auto dir = fs.path("/");
    r = write_html_report({trace}, dir, {});
    ASSERT_FALSE(r) << "a directory is not a file";
}

} // namespace
} // namespace jp::report
