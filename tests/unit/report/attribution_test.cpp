// SPDX-License-Identifier: BSD-3-Clause
// The job's share of a shared node from a trace whose power and CPU use are known:
// idle power exactly by allocation, dynamic power by CPU time, GPUs by holder, and
// job + unallocated + other = the node, part by part.
#include "attribution_fixture.hpp"
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

using test_attribution::Attribution_;

TEST_F(Attribution_, IdleByAllocationDynamicByUseGpuByHolder) {
    const auto s = job_run(facts(k_idle), use(10));
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
    auto f = facts(R"({"cpu0.package":10,"cpu1.package":10})", "[0,1]");
    const std::string given = R"("given_cpus":[0,1],)";
    f.replace(f.find(given), given.size(), given + R"("cpus_counted":1,)");
    const auto s = job_run(f, use(10));
    ASSERT_TRUE(s && s->attribution);
    const auto& a = *s->attribution;
    EXPECT_NEAR(part(a, "cpu0.package").share.job_idle_j, 50, 1e-6);
    EXPECT_NEAR(part(a, "cpu0.package").share.unallocated_j, 50, 1e-6);
    EXPECT_NEAR(part(a, "cpu1.package").share.job_idle_j, 50, 1e-6);
    EXPECT_DOUBLE_EQ(a.given_cpus, 1);
    EXPECT_FALSE(a.exclusive);
    // A count that is not a count is a damaged record: the node's figures.
    f.replace(f.find(R"("cpus_counted":1)"), 16, R"("cpus_counted":-1)");
    std::filesystem::remove(path);
    const auto s2 = job_run(f, use(10));
    ASSERT_TRUE(s2);
    EXPECT_FALSE(s2->attribution);
}

TEST_F(Attribution_, EveryPhaseAndEachPhaseNameHasItsShare) {
    test::TraceBuilder b{path, channels()};
    auto spec = test::make_run("job", 10, watts);
    spec.markers = {{2, "begin", "step"}, {4, "end", "step"},     {3, "begin", "step"},
                    {3.5, "end", "step"}, {6.5, "begin", "step"}, {7, "end", "step"}};
    const auto id = b.run(spec);
    b.usage(id, facts(k_idle), use(10));
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
    auto s = job_run(facts(k_idle), use(10));
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
    const auto page = slurp(html);
    EXPECT_NE(page.find("<p class=\"attribution\">job&#39;s share: 700.0 J"), std::string::npos);
    // The overview gives the node's figures and the job's share beside them, as the text of
    // `report` does, so that `study`'s text table (which leads with the share) has its figure
    // on the page too.
    const auto table = page.substr(page.find("<table class=\"overview\">"));
    EXPECT_NE(table.find("<th>Node Consumption [kJ]</th>"), std::string::npos) << table;
    EXPECT_NE(table.find("<th>Job's share [kJ]</th>"), std::string::npos) << table;
    EXPECT_NE(table.find("<td>1.600</td>"), std::string::npos) << table;
    EXPECT_NE(table.find("<td>0.700</td>"), std::string::npos) << table;
    EXPECT_LT(table.find("<td>1.600</td>"), table.find("<td>0.700</td>")) << table;
    EXPECT_NE(table.find("<td>70.0</td>"), std::string::npos) << table; // the job's power
    std::filesystem::remove(html);
}

TEST_F(Attribution_, CompareUsesTheJobsShareAndSaysSo) {
    test::TraceBuilder b{path, channels()};
    const auto id = b.run(test::make_run("shared", 10, watts));
    b.usage(id, facts(k_idle), use(10));
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
    EXPECT_NEAR(c->entries[0].energy_ratio.value_or(0), 700.0 / 1600.0, 1e-9);
    const auto text = format_comparison(*c);
    // The note names whom it is about first, and only the group whose node was shared.
    EXPECT_NE(text.find("note: shared — Energy and Avg power are the job's share of its shared "
                        "node"),
              std::string::npos)
        << text;
    // The power beside the share is the share's (700 J over 10 s), not the node's 160 W.
    ASSERT_TRUE((*groups)[0].job_avg_w);
    EXPECT_NEAR((*groups)[0].job_avg_w->mean, 70, 1e-6);
    EXPECT_NE(text.find(" 70.0 "), std::string::npos) << text;
    EXPECT_NEAR(comparison_json(*c)["entries"][0]["job_avg_w"]["mean"].get<double>(), 70, 1e-6);
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
    const auto s = job_run(facts("{}"), use(10));
    ASSERT_TRUE(s && s->attribution);
    EXPECT_TRUE(s->attribution->idle_source.empty());
    EXPECT_NEAR(part(*s->attribution, "cpu0.package").share.job_j(), 150, 1e-6); // 300 J x 1/2
    EXPECT_FALSE(s->attribution->notes.empty());
}

TEST_F(Attribution_, AJobGivenTheWholeNodeThatDidAllTheWorkIsExclusive) {
    std::vector<trace::UsageRecord> rows;
    for (int t = 0; t <= 10; ++t) {
        rows.push_back({t * test::k_s, 0, 1.0 * t, 1.0 * t});
        rows.push_back({t * test::k_s, 1, 0.5 * t, 0.5 * t});
    }
    const auto s = job_run(facts(R"({"cpu0.package":10})", "[0,1]", "null"), rows);
    ASSERT_TRUE(s && s->attribution);
    EXPECT_TRUE(s->attribution->exclusive);
    EXPECT_NEAR(s->attribution->node.job_j(), s->node.energy_j, 1e-3);
}

TEST_F(Attribution_, ExclusiveNeedsTheCpuUseReadOverTheRun) {
    // The whole node given, but only the first reading kept: nothing says who used it.
    const auto s =
        job_run(facts(R"({"cpu0.package":10})", "[0,1]", "null"), {{0, 0, 0, 0}, {0, 1, 0, 0}});
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
        const auto s = job_run(f, rows);
        ASSERT_TRUE(s) << f;
        EXPECT_FALSE(s->attribution) << f;
        EXPECT_NE(
            std::ranges::find(s->notes, "the run's usage record is damaged: node figures only"),
            s->notes.end())
            << f;
    }
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
    const auto s = job_run("{not json", use(10));
    ASSERT_TRUE(s);
    EXPECT_FALSE(s->attribution);
    EXPECT_NE(std::ranges::find(s->notes, "the run's usage record is damaged: node figures only"),
              s->notes.end());
}

} // namespace
} // namespace jp::report
