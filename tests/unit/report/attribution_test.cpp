// SPDX-License-Identifier: BSD-3-Clause
// The job's share of a shared node from a trace whose power and CPU use are known:
// idle power exactly by allocation, dynamic power by CPU time, GPUs by holder, and
// job + unallocated + other = the node, part by part.
#include "report/compare.hpp"
#include "report/format.hpp"
#include "report/html/report.hpp"
#include "report/summary.hpp"
#include "trace_builder.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace jp::report {
namespace {

using test::channel;

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in{p};
    return {std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
}

struct Attribution_ : ::testing::Test {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("jp-attr-" + std::to_string(::getpid()) + ".jptrace");
    void SetUp() override { std::filesystem::remove(path); }
    void TearDown() override { std::filesystem::remove(path); }

    static std::vector<Channel> channels() {
        return {channel("cpu0.package", Domain::cpu_package, Quantity::energy),
                channel("cpu1.package", Domain::cpu_package, Quantity::energy),
                channel("gpu0", Domain::gpu, Quantity::energy),
                channel("gpu1", Domain::gpu, Quantity::energy)};
    }
    // Package 0 fully busy (half of it the job's), package 1 half busy (none the job's).
    static double watts(std::size_t ch, double) {
        constexpr double w[] = {10 + 20 * 1.0, 10 + 20 * 0.5, 50, 60};
        return w[ch];
    }
    static std::vector<trace::UsageRecord> use(double seconds) {
        std::vector<trace::UsageRecord> rows;
        for (int t = 0; t <= static_cast<int>(seconds); ++t) {
            const auto ns = static_cast<std::int64_t>(t) * test::k_s;
            rows.push_back({ns, 0, 0.5 * t, 1.0 * t});
            rows.push_back({ns, 1, 0.0, 0.5 * t});
        }
        return rows;
    }
    static std::string
    facts(std::string_view idle, std::string_view given = "[0]", std::string_view gpus = "[0]") {
        return fmt::format(R"({{"version":1,"job":"test","cpus":[0,1],"given_cpus":{},)"
                           R"("package_of":{{"0":0,"1":1}},"memory_total":null,)"
                           R"("memory_given":null,"gpus_given":{},"gpu_source":"",)"
                           R"("idle_w":{},"notes":[]}})",
                           given, gpus, idle);
    }
    static const PartShare& part(const Attribution& a, std::string_view name) {
        for (const auto& p : a.parts) {
            if (p.name == name) {
                return p;
            }
        }
        throw std::runtime_error("no part " + std::string{name});
    }
};

TEST_F(Attribution_, IdleByAllocationDynamicByUseGpuByHolder) {
    test::TraceBuilder b{path, channels()};
    const auto id = b.run(test::make_run("job", 10, watts));
    b.usage(id, facts(R"({"cpu0.package":10,"cpu1.package":10,"gpu0":30,"gpu1":30})"), use(10));
    auto reader = b.reader();
    const auto s = summarize_run(reader, reader.runs().front());
    ASSERT_TRUE(s);
    ASSERT_TRUE(s->attribution);
    const auto& a = *s->attribution;
    EXPECT_FALSE(a.exclusive);
    EXPECT_EQ(a.idle_source, "config");
    EXPECT_EQ(a.method,
              "idle by allocation (config), dynamic by CPU time; a GPU the job holds, all its own");
    const auto& p0 = part(a, "cpu0.package").share;
    EXPECT_NEAR(p0.job_idle_j, 100, 1e-6);    // 10 W x 10 s, the job holds package 0's one CPU
    EXPECT_NEAR(p0.job_dynamic_j, 100, 1e-6); // 20 W x 10 s of use, half of it the job's
    EXPECT_NEAR(p0.other_j, 100, 1e-6);
    const auto& p1 = part(a, "cpu1.package").share;
    EXPECT_NEAR(p1.job_j(), 0, 1e-6);
    EXPECT_NEAR(p1.unallocated_j, 100, 1e-6);
    EXPECT_NEAR(p1.other_j, 100, 1e-6);
    const auto& g0 = part(a, "gpu0").share;
    EXPECT_NEAR(g0.job_idle_j, 300, 1e-6);
    EXPECT_NEAR(g0.job_dynamic_j, 200, 1e-6);
    const auto& g1 = part(a, "gpu1").share;
    EXPECT_NEAR(g1.job_j(), 0, 1e-6); // another's GPU is never the job's idle waste
    EXPECT_NEAR(g1.unallocated_j, 300, 1e-6);
    EXPECT_NEAR(g1.other_j, 300, 1e-6);
    // Conservation, part by part and in all, against the node's own figures.
    for (const auto& item : s->parts) {
        ASSERT_TRUE(item.share) << item.name;
        EXPECT_NEAR(item.share->node_j(), item.energy_j, 1e-3) << item.name;
    }
    EXPECT_NEAR(a.node.node_j(), s->node.energy_j, 1e-3);
    EXPECT_NEAR(a.node.job_j(), 700, 1e-6);
    EXPECT_NEAR(a.job_cpu_s, 5, 1e-9);
    EXPECT_NEAR(a.node_busy_s, 15, 1e-9);

    const auto j = run_to_json(*s);
    EXPECT_NEAR(j.at("attribution").at("job_j").get<double>(), 700, 1e-6);
    EXPECT_EQ(j.at("attribution").at("exclusive"), false);
    EXPECT_EQ(j.at("attribution").at("parts").size(), 4U);
    EXPECT_NEAR(j.at("parts").at(0).at("share").at("idle_j").get<double>(), 100, 1e-6);
}

TEST_F(Attribution_, ACountOfCpusWithoutThemNamedGivesEachPackageThatShare) {
    // Slurm gave the job 1 CPU of 2 without binding it (SLURM_CPUS_ON_NODE=1, task/none):
    // half of each package's idle power, not all of one package's.
    test::TraceBuilder b{path, channels()};
    const auto id = b.run(test::make_run("job", 10, watts));
    auto f = facts(R"({"cpu0.package":10,"cpu1.package":10})", "[0,1]");
    const std::string given = R"("given_cpus":[0,1],)";
    f.replace(f.find(given), given.size(), given + R"("cpus_counted":1,)");
    b.usage(id, f, use(10));
    auto reader = b.reader();
    const auto s = summarize_run(reader, reader.runs().front());
    ASSERT_TRUE(s && s->attribution);
    const auto& a = *s->attribution;
    EXPECT_NEAR(part(a, "cpu0.package").share.job_idle_j, 50, 1e-6);
    EXPECT_NEAR(part(a, "cpu0.package").share.unallocated_j, 50, 1e-6);
    EXPECT_NEAR(part(a, "cpu1.package").share.job_idle_j, 50, 1e-6);
    EXPECT_DOUBLE_EQ(a.given_cpus, 1);
    EXPECT_FALSE(a.exclusive);
    // A count that is not a count is a damaged record: the node's figures.
    f.replace(f.find(R"("cpus_counted":1)"), 16, R"("cpus_counted":-1)");
    test::TraceBuilder b2{path.string() + "2", channels()};
    const auto id2 = b2.run(test::make_run("job", 10, watts));
    b2.usage(id2, f, use(10));
    auto reader2 = b2.reader();
    const auto s2 = summarize_run(reader2, reader2.runs().front());
    ASSERT_TRUE(s2);
    EXPECT_FALSE(s2->attribution);
    std::filesystem::remove(path.string() + "2");
}

TEST_F(Attribution_, EveryPhaseAndEachPhaseNameHasItsShare) {
    test::TraceBuilder b{path, channels()};
    auto spec = test::make_run("job", 10, watts);
    spec.markers = {{2, "begin", "step"}, {4, "end", "step"},     {3, "begin", "step"},
                    {3.5, "end", "step"}, {6.5, "begin", "step"}, {7, "end", "step"}};
    const auto id = b.run(spec);
    b.usage(id, facts(R"({"cpu0.package":10,"cpu1.package":10,"gpu0":30,"gpu1":30})"), use(10));
    auto reader = b.reader();
    const auto s = summarize_run(reader, reader.runs().front());
    ASSERT_TRUE(s && s->attribution);
    ASSERT_EQ(s->phases.size(), 3U);
    const auto& first = s->phases.front(); // [2, 4] s: a usage reading every second inside
    const auto& p0 = first.parts.front();
    ASSERT_EQ(p0.name, "cpu0.package");
    ASSERT_TRUE(p0.share);
    EXPECT_NEAR(p0.share->job_idle_j, 20, 1e-6);
    EXPECT_NEAR(p0.share->job_dynamic_j, 20, 1e-6);
    EXPECT_NEAR(first.node.share->node_j(), first.node.energy_j, 1e-6);
    // The nested occurrence [3, 3.5] inside [2, 4] counts once in the total: [2, 4] + [6.5, 7].
    ASSERT_EQ(s->phase_totals.size(), 1U);
    const auto& total = s->phase_totals.front();
    EXPECT_NEAR(total.parts.front().share->job_idle_j, 25, 1e-6);
    EXPECT_NEAR(total.node.share->node_j(), total.node.energy_j, 1e-6);
    EXPECT_NEAR(total.node.share->job_j(), 2.5 * (20 + 50), 1e-6); // package 0 and gpu0
}

TEST_F(Attribution_, TheTextAndTheHtmlLeadWithTheJobsShare) {
    test::TraceBuilder b{path, channels()};
    const auto id = b.run(test::make_run("job", 10, watts));
    b.usage(id, facts(R"({"cpu0.package":10,"cpu1.package":10,"gpu0":30,"gpu1":30})"), use(10));
    auto reader = b.reader();
    auto s = summarize_run(reader, reader.runs().front());
    ASSERT_TRUE(s);
    const auto group = aggregate_runs("job", {*s});
    const auto lines = attribution_lines(group);
    ASSERT_EQ(lines.size(), 2U);
    EXPECT_EQ(lines[0],
              "job's share: 700.0 J of the node's 1.600 kJ (43.8 %; the sensors bound "
              "it to 520–830 J (edge staleness; assumes ≤ 2× the peak seen)); unallocated "
              "400.0 J, other processes 500.0 J");
    EXPECT_NE(format_details(group, {}).find(lines[1]), std::string::npos);
    const auto html = path.string() + ".html";
    ASSERT_TRUE(write_html_report({path}, html, {}));
    EXPECT_NE(slurp(html).find("<p class=\"attribution\">job&#39;s share: 700.0 J"),
              std::string::npos);
    std::filesystem::remove(html);
}

TEST_F(Attribution_, CompareUsesTheJobsShareAndSaysSo) {
    test::TraceBuilder b{path, channels()};
    const auto id = b.run(test::make_run("shared", 10, watts));
    b.usage(id, facts(R"({"cpu0.package":10,"cpu1.package":10,"gpu0":30,"gpu1":30})"), use(10));
    b.run(test::make_run("alone", 10, watts)); // no usage: the node's figure
    auto reader = b.reader();
    auto groups = summarize_trace(reader);
    ASSERT_TRUE(groups);
    ASSERT_EQ(groups->size(), 2U);
    ASSERT_TRUE((*groups)[0].job_energy_j);
    EXPECT_NEAR((*groups)[0].job_energy_j->mean, 700, 1e-6);
    EXPECT_FALSE((*groups)[1].job_energy_j);
    const auto c = compare_groups(*groups, "alone");
    ASSERT_TRUE(c);
    EXPECT_NEAR(c->entries[0].energy_ratio, 700.0 / 1600.0, 1e-9);
    const auto text = format_comparison(*c);
    EXPECT_NE(text.find("note: Energy is the job's share of its shared node"), std::string::npos);
    EXPECT_NEAR(comparison_json(*c)["entries"][0]["job_energy_j"]["mean"].get<double>(), 700, 1e-6);
    EXPECT_TRUE(comparison_json(*c)["entries"][1]["job_energy_j"].is_null());
}

TEST_F(Attribution_, IdlePowerFromABaselineRunWhenTheConfigHasNone) {
    test::TraceBuilder b{path, channels()};
    auto base = test::make_run("baseline", 5, [](std::size_t ch, double) {
        constexpr double w[] = {10, 10, 30, 30};
        return w[ch];
    });
    base.kind = "baseline";
    b.run(base);
    const auto id = b.run(test::make_run("job", 10, watts));
    b.usage(id, facts("{}"), use(10));
    auto reader = b.reader();
    const auto s = summarize_run(reader, reader.runs().back());
    ASSERT_TRUE(s && s->attribution);
    EXPECT_EQ(s->attribution->idle_source, "baseline run");
    EXPECT_NEAR(part(*s->attribution, "cpu0.package").share.job_idle_j, 100, 1e-6);
    EXPECT_NEAR(part(*s->attribution, "gpu1").share.unallocated_j, 300, 1e-6);
}

TEST_F(Attribution_, WithoutIdlePowerEverythingGoesByUseAndTheReportSaysSo) {
    test::TraceBuilder b{path, channels()};
    const auto id = b.run(test::make_run("job", 10, watts));
    b.usage(id, facts("{}"), use(10));
    auto reader = b.reader();
    const auto s = summarize_run(reader, reader.runs().front());
    ASSERT_TRUE(s && s->attribution);
    EXPECT_TRUE(s->attribution->idle_source.empty());
    EXPECT_NEAR(part(*s->attribution, "cpu0.package").share.job_j(), 150, 1e-6); // 300 J x 1/2
    EXPECT_FALSE(s->attribution->notes.empty());
}

TEST_F(Attribution_, AJobGivenTheWholeNodeThatDidAllTheWorkIsExclusive) {
    test::TraceBuilder b{path, channels()};
    const auto id = b.run(test::make_run("job", 10, watts));
    std::vector<trace::UsageRecord> rows;
    for (int t = 0; t <= 10; ++t) {
        rows.push_back({t * test::k_s, 0, 1.0 * t, 1.0 * t});
        rows.push_back({t * test::k_s, 1, 0.5 * t, 0.5 * t});
    }
    b.usage(id, facts(R"({"cpu0.package":10})", "[0,1]", "null"), rows);
    auto reader = b.reader();
    const auto s = summarize_run(reader, reader.runs().front());
    ASSERT_TRUE(s && s->attribution);
    EXPECT_TRUE(s->attribution->exclusive);
    EXPECT_NEAR(s->attribution->node.job_j(), s->node.energy_j, 1e-3);
}

TEST_F(Attribution_, ExclusiveNeedsTheCpuUseReadOverTheRun) {
    test::TraceBuilder b{path, channels()};
    const auto id = b.run(test::make_run("job", 10, watts));
    // The whole node given, but only the first reading kept: nothing says who used it.
    b.usage(id, facts(R"({"cpu0.package":10})", "[0,1]", "null"), {{0, 0, 0, 0}, {0, 1, 0, 0}});
    auto reader = b.reader();
    const auto s = summarize_run(reader, reader.runs().front());
    ASSERT_TRUE(s && s->attribution);
    EXPECT_FALSE(s->attribution->exclusive);
    EXPECT_NE(std::ranges::find_if(
                  s->attribution->notes,
                  [](const auto& n) { return n.starts_with("the CPU use was read over 0 %"); }),
              s->attribution->notes.end());
}

TEST_F(Attribution_, ANodeMeterWithoutPartsIsSplitWhole) {
    test::TraceBuilder b{path, {channel("node", Domain::node, Quantity::energy)}};
    const auto id = b.run(test::make_run("job", 10, test::flat(100)));
    std::vector<trace::UsageRecord> rows;
    for (int t = 0; t <= 10; ++t) { // the job used 10 % of what was busy
        rows.push_back({t * test::k_s, 0, 0.1 * t, 1.0 * t});
    }
    b.usage(id, facts(R"({"node":50})", "[0,1]", "null"), rows);
    auto reader = b.reader();
    const auto s = summarize_run(reader, reader.runs().front());
    ASSERT_TRUE(s && s->attribution);
    EXPECT_FALSE(s->attribution->exclusive);
    ASSERT_EQ(s->attribution->parts.size(), 1U);
    EXPECT_EQ(s->attribution->parts[0].name, "node");
    EXPECT_NEAR(s->attribution->node.job_j(), 500 + 50, 1e-6); // its idle + 10 % of 500 J
    EXPECT_NEAR(s->attribution->node.node_j(), s->node.energy_j, 1e-6);
}

TEST_F(Attribution_, CraftedUsageIsANoteNotACrashNorGigabytes) {
    const std::vector<std::pair<std::string, std::vector<trace::UsageRecord>>> cases{
        {facts("{}"), {{0, 4096, 0, 0}}},                      // a package the facts do not name
        {facts("{}"), {{0, 0, 1, 1}, {test::k_s, 0, 0.5, 2}}}, // the job's time going back
        {facts("{}"), {{0, 0, -1, 1}}},                        // negative
        {R"({"cpus":[0],"given_cpus":[0],"package_of":{},"job":5,"memory_total":null,)"
         R"("memory_given":null,"gpus_given":null})",
         {{0, 0, 0, 0}}}, // a field of another type
        {R"({"cpus":[1e20],"given_cpus":[0],"package_of":{},"memory_total":null,)"
         R"("memory_given":null,"gpus_given":null})",
         {{0, 0, 0, 0}}}, // a float where an index belongs
    };
    for (const auto& [f, rows] : cases) {
        std::filesystem::remove(path);
        test::TraceBuilder b{path, channels()};
        const auto id = b.run(test::make_run("job", 10, watts));
        b.usage(id, f, rows);
        auto reader = b.reader();
        const auto s = summarize_run(reader, reader.runs().front());
        ASSERT_TRUE(s) << f;
        EXPECT_FALSE(s->attribution) << f;
        EXPECT_NE(
            std::ranges::find(s->notes, "the run's usage record is damaged: node figures only"),
            s->notes.end())
            << f;
    }
}

// The counters are read every second with no stated update period or limit: each may
// lag by a second at the most power (twice the highest seen), so at every cut it lies
// between its reading and 60 J (cpu0), 100 J (gpu0) above it.
TEST_F(Attribution_, TheJobsShareCarriesTheSensorsBound) {
    test::TraceBuilder b{path, channels()};
    auto spec = test::make_run("job", 10, watts);
    spec.markers = {{2, "begin", "step"}, {4, "end", "step"}};
    const auto id = b.run(spec);
    b.usage(id, facts(R"({"cpu0.package":10,"cpu1.package":10,"gpu0":30,"gpu1":30})"), use(10));
    auto reader = b.reader();
    const auto s = summarize_run(reader, reader.runs().front());
    ASSERT_TRUE(s && s->attribution);
    const auto& a = *s->attribution;
    // cpu0: the job's half of the use is steady, so only the run's edges count (±0.5 × 60 J),
    // and in each second the energy could be 0 (a counter never runs back): the job's
    // share is then 0, 5 J below the line the slope of 0.5 draws (10 × 5 J, below only:
    // above idle power the line is the share itself).
    const auto& p0 = part(a, "cpu0.package").share;
    ASSERT_TRUE(p0.job_bound);
    EXPECT_NEAR(p0.job_bound->low, 200 - 30 - 50, 0.01);
    EXPECT_NEAR(p0.job_bound->high, 200 + 30, 0.01);
    const auto& g0 = part(a, "gpu0").share; // the job's own GPU: all of its error
    ASSERT_TRUE(g0.job_bound);
    EXPECT_NEAR(g0.job_bound->low, 400, 0.01);
    EXPECT_NEAR(g0.job_bound->high, 600, 0.01);
    EXPECT_NEAR(part(a, "gpu1").share.job_bound->half_width(), 0, 1e-9); // another's GPU
    ASSERT_TRUE(a.node.job_bound);
    EXPECT_NEAR(a.node.job_bound->low, 520, 0.01);
    EXPECT_NEAR(a.node.job_bound->high, 830, 0.01);
    EXPECT_EQ(a.node.job_bound->dominant, "edge staleness");
    EXPECT_TRUE(a.node.job_bound->max_assumed);
    // The node's own bound is wider: all of every part's error.
    ASSERT_TRUE(s->node.bound);
    EXPECT_NEAR(s->node.bound->half_width(), 320, 0.01);

    const auto j = run_to_json(*s).at("attribution");
    EXPECT_NEAR(j.at("job_low_j").get<double>(), 520, 0.01);
    EXPECT_NEAR(j.at("job_high_j").get<double>(), 830, 0.01);
    EXPECT_NEAR(j.at("job_bound_terms").at("idle_crossing").get<double>(), 50, 0.01);
    EXPECT_EQ(j.at("job_bound_dominant"), "edge staleness");
    EXPECT_EQ(j.at("job_measurable"), true);
    EXPECT_TRUE(j.at("parts").at(0).contains("job_low_j"));
    // A phase's share has its own: [2, 4] s of the same, the edges a counter's readings.
    const auto& phase = s->phases.front();
    ASSERT_TRUE(phase.node.share && phase.node.share->job_bound);
    EXPECT_LE(phase.node.share->job_bound->low, phase.node.share->job_j());
    EXPECT_GE(phase.node.share->job_bound->high, phase.node.share->job_j());
    // Repeats: the job's figure carries the sensors' bound on its mean.
    const auto group = aggregate_runs("job", {*s});
    ASSERT_TRUE(group.job_energy_j && group.job_energy_j->sensor);
    EXPECT_NEAR(group.job_energy_j->sensor->low, 520, 0.01);
}

TEST_F(Attribution_, AShareOfAPowerReadingIsBoundedByItsFieldAndAnEstimatesIsNot) {
    auto chans = channels();
    chans[2] = channel("gpu0", Domain::gpu, Quantity::power); // a power field, no counter
    test::TraceBuilder b{path, chans};
    const auto id = b.run(test::make_run("job", 10, watts));
    b.usage(id, facts(R"({"cpu0.package":10,"cpu1.package":10,"gpu0":30,"gpu1":30})"), use(10));
    auto reader = b.reader();
    const auto s = summarize_run(reader, reader.runs().front());
    ASSERT_TRUE(s && s->attribution);
    const auto& gpu = part(*s->attribution, "gpu0").share;
    ASSERT_TRUE(gpu.job_bound) << "each interval's energy within the field's bound over it";
    EXPECT_TRUE(gpu.job_bound->field_assumed);
    EXPECT_LE(gpu.job_bound->low, gpu.job_j());
    EXPECT_GE(gpu.job_bound->high, gpu.job_j());
    EXPECT_TRUE(part(*s->attribution, "cpu0.package").share.job_bound);
    ASSERT_TRUE(s->attribution->node.job_bound);
    EXPECT_TRUE(s->attribution->node.job_bound->field_assumed) << "a sum says what a term assumes";
    const auto j = run_to_json(*s).at("attribution");
    EXPECT_TRUE(j.contains("job_low_j")) << j.dump();
    EXPECT_TRUE(j.at("job_bound_assumes_field").get<bool>()) << j.dump();

    // A model's power (an estimate) is no measurement: no bound, nor for the sum.
    chans[2] = channel("gpu0", Domain::gpu, Quantity::power, Provenance::estimated);
    auto other = path;
    other += ".estimate";
    std::filesystem::remove(other);
    test::TraceBuilder e{other, chans};
    const auto eid = e.run(test::make_run("job", 10, watts));
    e.usage(eid, facts(R"({"cpu0.package":10,"cpu1.package":10,"gpu0":30,"gpu1":30})"), use(10));
    auto er = e.reader();
    const auto es = summarize_run(er, er.runs().front());
    ASSERT_TRUE(es && es->attribution);
    EXPECT_FALSE(part(*es->attribution, "gpu0").share.job_bound);
    EXPECT_FALSE(es->attribution->node.job_bound); // a sum with an unbounded term
    EXPECT_FALSE(run_to_json(*es).at("attribution").contains("job_low_j"));
    std::filesystem::remove(other);
}

TEST_F(Attribution_, ARunWithoutUsageHasNodeFiguresOnly) {
    test::TraceBuilder b{path, channels()};
    b.run(test::make_run("job", 10, watts));
    auto reader = b.reader();
    const auto s = summarize_run(reader, reader.runs().front());
    ASSERT_TRUE(s);
    EXPECT_FALSE(s->attribution);
    EXPECT_FALSE(s->node.share);
    EXPECT_TRUE(run_to_json(*s).at("attribution").is_null());
}

TEST_F(Attribution_, DamagedFactsAreSaidNotGuessed) {
    test::TraceBuilder b{path, channels()};
    const auto id = b.run(test::make_run("job", 10, watts));
    b.usage(id, "{not json", use(10));
    auto reader = b.reader();
    const auto s = summarize_run(reader, reader.runs().front());
    ASSERT_TRUE(s);
    EXPECT_FALSE(s->attribution);
    EXPECT_NE(std::ranges::find(s->notes, "the run's usage record is damaged: node figures only"),
              s->notes.end());
}

} // namespace
} // namespace jp::report
