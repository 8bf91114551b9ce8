// SPDX-License-Identifier: BSD-3-Clause
// The HTML report as a whole page, written from traces.
#include "fake_sysfs.hpp"
#include "report/html/report.hpp"
#include "report/summary.hpp"
#include "trace/reader.hpp"
#include "trace_maker.hpp"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace jp::report {
namespace {

using test::channel;
using test::ChannelSpec;
using test::k_sec;

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
    EXPECT_NE(page.find("Time since the run began [s]"), std::string::npos);
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
    // The peak's range from the node counter's bounds, around the 900 W it was.
    const std::string range = "(the true peak at this resolution lies in ";
    const auto at = page.find(range);
    ASSERT_NE(at, std::string::npos);
    double low = 0;
    double high = 0;
    ASSERT_EQ(std::sscanf(page.c_str() + at + range.size(), "%lf–%lf W", &low, &high), 2)
        << page.substr(at, 160);
    EXPECT_LE(low, 900.0);
    EXPECT_GE(high, 900.0);
    // A counter whose update period cannot be told from its readings (every reading a
    // change) may lag by a whole spacing at each edge of a half-second window: wide, said.
    EXPECT_GT(high, low);
    EXPECT_NE(page.find("W by the sensors' bounds; assumes ≤ 2× the peak seen)"), std::string::npos)
        << page.substr(at, 160);
    // Tables: node 900 W × 60 s + 500 W × 30 s = 69 kJ; runtime; provenance.
    EXPECT_NE(page.find("Consumption [kJ]"), std::string::npos);
    EXPECT_NE(page.find("Average power [W]"), std::string::npos);
    EXPECT_NE(page.find("<th>Runtime</th>"), std::string::npos);
    EXPECT_NE(page.find("69.000"), std::string::npos);
    EXPECT_NE(page.find("00:01:30"), std::string::npos);
    EXPECT_NE(page.find("<span class=\"prov estimated\">estimated</span>"), std::string::npos);
    EXPECT_NE(page.find("<span class=\"prov measured\">measured</span>"), std::string::npos);
    EXPECT_NE(page.find("rest of node (estimated)"), std::string::npos) << "node − Σ parts, one "
                                                                           "of them estimated";
    EXPECT_NE(page.find("hatched = estimated"), std::string::npos);
    // The node meter is a counter: the sensors' bound beside its figure in the tables, and a
    // whisker on its bar (docs/uncertainty.md).
    EXPECT_EQ(count(page, "<th>± sensors</th>"), 3U)
        << "the overview, the part table and the phase table";
    EXPECT_EQ(count(page, "class=\"bar-bound\""), 1U);
    EXPECT_NE(page.find("the sensors&#39; bound on the node&#39;s energy: "), std::string::npos);
    EXPECT_NE(page.find("The whisker on a bar spans the sensors"), std::string::npos);
    EXPECT_EQ(count(page, "class=\"bound-band\""), 1U) << "under the node's profile";
    EXPECT_NE(page.find("The grey band around the node is where the sensors"), std::string::npos);
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

TEST_F(HtmlReport, ConstantPowerHasAReadableBinWidthAndAShareAxisEndingAt100) {
    auto specs = gpu_node();
    specs[0].watts = [](double) { return 16.6; };
    ASSERT_TRUE(test::make_trace(trace, specs, {{"flat", "measure", "./f", 10, 0.1, {}}}));
    ASSERT_TRUE(write_html_report({trace}, out, {}));
    const auto page = slurp(out);
    EXPECT_EQ(page.find("per 0 W bin"), std::string::npos);
    const auto at = page.find("runtime per ");
    ASSERT_NE(at, std::string::npos);
    EXPECT_EQ(page.substr(at, 30).find("per 0.0917 W bin"), 8U) << page.substr(at, 40);
    // The share axis of the histogram: its top tick is 100 %, not 120.
    const auto hist = page.find("class=\"jp-hist\"");
    ASSERT_NE(hist, std::string::npos);
    const auto svg = page.substr(hist, page.find("</svg>", hist) - hist);
    EXPECT_NE(svg.find(">100<"), std::string::npos) << svg.substr(0, 3000);
    EXPECT_EQ(svg.find(">120<"), std::string::npos);
}

TEST_F(HtmlReport, ThousandsOfPhaseOccurrencesCloserThanAPixelAreOneNamedBand) {
    std::vector<trace::Marker> m;
    for (std::int64_t i = 0; i < 15000; ++i) { // 15,000 steps of 4 ms in a minute, a point each
        m.push_back({0, i * 4'000'000, "begin", "step"});
        m.push_back({0, i * 4'000'000 + 3'000'000, "end", "step"});
        m.push_back({0, i * 4'000'000 + 3'000'000, "point", "loss"});
    }
    m.push_back({0, 70 * k_sec, "begin", "eval"});
    m.push_back({0, 80 * k_sec, "end", "eval"});
    ASSERT_TRUE(test::make_trace(trace, gpu_node(), {{"steps", "measure", "./s", 90, 1, m}}));
    ASSERT_TRUE(write_html_report({trace}, out, {}));
    const auto page = slurp(out);
    EXPECT_LT(page.size(), 300'000U);
    EXPECT_NE(page.find(">step ×15000<"), std::string::npos);
    EXPECT_NE(page.find(">eval<"), std::string::npos) << "a phase of its own stays as it is";
    EXPECT_EQ(count(page, "fill-opacity=\"0.13\""), 2U) << "one band for the steps, one for eval";
    EXPECT_NE(page.find("<title>loss ×"), std::string::npos);
    EXPECT_LT(count(page, "class=\"mark\""), 1000U);
    // One run on a time axis: 0 to 90 s.
    EXPECT_NE(page.find("Time since the run began [s]"), std::string::npos);
    EXPECT_NE(page.find(">80<"), std::string::npos);
}

TEST_F(HtmlReport, ARunShorterThanTwoWindowsIsDrawnAsItsMeanAcrossTheRun) {
    ASSERT_TRUE(test::make_trace(trace, gpu_node(), {{"short", "measure", "./s", 0.02, 0.02, {}}}));
    ASSERT_TRUE(write_html_report({trace}, out, {}));
    const auto page = slurp(out);
    EXPECT_NE(page.find("shorter than two of the profile's windows"), std::string::npos);
    for (auto n : polyline_sizes(page)) {
        EXPECT_EQ(n, 2U) << "each line from the run's start to its end";
    }
}

TEST_F(HtmlReport, PhaseFiguresAreTheSameAsTheTextAndJsonReport) {
    ASSERT_TRUE(test::make_trace(trace, gpu_node(),
                                 {{"train", "measure", "python train.py", 90, 0.5, phases()}}));
    ASSERT_TRUE(write_html_report({trace}, out, {}));
    const auto page = slurp(out);
    auto reader = trace::Reader::open(trace);
    ASSERT_TRUE(reader);
    const auto groups = summarize_trace(*reader);
    ASSERT_TRUE(groups);
    const auto& run = groups->front().runs.front();
    // The whisker's tooltip says what the node's bound rests on, as the text does.
    ASSERT_TRUE(run.node.bound);
    ASSERT_TRUE(run.node.bound->assumed.peak) << "the case this checks";
    const auto whisker = page.find("the sensors&#39; bound on the node&#39;s energy: ");
    ASSERT_NE(whisker, std::string::npos);
    EXPECT_NE(page.substr(whisker, page.find("</title>", whisker) - whisker)
                  .find("; assumes ≤ 2× the peak seen"),
              std::string::npos);
    for (const auto& t : run.phase_totals) {
        // The HTML row: name, count, duration, share, node energy [kJ here], ...
        const auto at = page.find("<tr><td>" + t.name + "</td>");
        ASSERT_NE(at, std::string::npos) << t.name;
        std::vector<std::string> cells;
        for (auto p = at; cells.size() < 5;) {
            const auto a = page.find("<td>", p);
            const auto b = page.find("</td>", a);
            cells.push_back(page.substr(a + 4, b - a - 4));
            p = b;
        }
        EXPECT_EQ(cells[1], std::to_string(t.occurrences)) << t.name;
        // The sensors' bound beside it, as the text's phase row gives it.
        ASSERT_TRUE(t.node.bound) << t.name;
        const auto bound_at = page.find("<td title=\"", page.find(cells[4], at));
        ASSERT_NE(bound_at, std::string::npos);
        EXPECT_NE(page.substr(bound_at, 80).find(fmt::format("{:.4g}–", t.node.bound->low)),
                  std::string::npos)
            << t.name << ": " << page.substr(bound_at, 120);
        // Node energy in kJ with 3 decimals: the same figure as the text and JSON report.
        EXPECT_NEAR(std::stod(cells[4]), t.node.energy_j * 1e-3,
                    0.0005 + 1e-3 * t.node.energy_j * 1e-3)
            << t.name << ": HTML " << cells[4] << " kJ, report " << t.node.energy_j << " J";
    }
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
