// SPDX-License-Identifier: BSD-3-Clause
// Phases: the figures of the windows marked inside the job, for the node and
// each part, per occurrence and per name, and mean ± std across repeats.
#include "fake_sysfs.hpp"
#include "report/format.hpp"
#include "report/summary.hpp"
#include "trace_builder.hpp"

#include <cctype>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace jp::report {
namespace {

using test::channel;
using test::exact_joules;

// node, cpu0.package, gpu0: energy counters; load rises for training (10..30 s).
double load(std::size_t ch, double t) {
    static constexpr double before[] = {500, 200, 100};
    static constexpr double train[] = {900, 250, 500};
    static constexpr double after[] = {400, 150, 60};
    return t < 10 ? before[ch] : (t < 30 ? train[ch] : after[ch]);
}

std::vector<Channel> node_cpu_gpu() {
    return {channel("node", Domain::node, Quantity::energy),
            channel("cpu0.package", Domain::cpu_package, Quantity::energy),
            channel("gpu0", Domain::gpu, Quantity::energy)};
}

const Item& part(const Figures& f, const std::string& name) {
    for (const auto& p : f.parts) {
        if (p.name == name) {
            return p;
        }
    }
    throw std::runtime_error("no part " + name);
}

using Markers = std::vector<std::tuple<double, std::string, std::string>>;

// One 40 s run of `load` on node, CPU and GPU with these markers (t s, kind, name), summarised.
RunSummary summary_with(const Markers& markers) {
    test::FakeSysfs fs;
    test::TraceBuilder b{fs.path("/m.jptrace"), node_cpu_gpu()};
    test::RunSpec spec;
    spec.seconds = 40;
    spec.watts = load;
    spec.markers = markers;
    b.run(spec);
    auto r = b.reader();
    auto s = summarize_run(r, r.runs()[0]);
    if (!s) {
        throw std::runtime_error(s.error().message());
    }
    return std::move(*s);
}

TEST(PhaseSummary, EachPhaseHasItsOwnEnergyRuntimeAveragePeakForNodeAndParts) {
    test::FakeSysfs fs;
    test::TraceBuilder b{fs.path("/p.jptrace"), node_cpu_gpu()};
    test::RunSpec spec;
    spec.seconds = 40;
    spec.watts = load;
    // Boundaries off the sample grid: the counters are interpolated inside a step.
    spec.markers = {{9.5, "begin", "train"},
                    {30.25, "end", "train"},
                    {32.5, "begin", "infer"},
                    {37.5, "end", "infer"}};
    b.run(spec);
    auto r = b.reader();
    auto s = summarize_run(r, r.runs()[0]);
    ASSERT_TRUE(s) << s.error().message();
    ASSERT_EQ(s->phases.size(), 2U);
    const auto& train = s->phases[0];
    EXPECT_EQ(train.name, "train");
    EXPECT_NEAR(train.runtime_s, 20.75, 1e-9);
    const double node_j = exact_joules(load, 0, 1, 9.5, 30.25);
    const double cpu_j = exact_joules(load, 1, 1, 9.5, 30.25);
    const double gpu_j = exact_joules(load, 2, 1, 9.5, 30.25);
    EXPECT_NEAR(train.node.energy_j, node_j, 1e-6);
    EXPECT_NEAR(train.node.avg_w, node_j / 20.75, 1e-6);
    EXPECT_NEAR(part(train, "cpu0.package").energy_j, cpu_j, 1e-6);
    EXPECT_NEAR(part(train, "gpu0").energy_j, gpu_j, 1e-6);
    ASSERT_TRUE(train.rest);
    EXPECT_NEAR(train.rest->energy_j, node_j - cpu_j - gpu_j, 1e-6);
    EXPECT_EQ(train.rest->provenance, Provenance::derived);
    EXPECT_NEAR(*train.node.peak_w, 900, 1e-6) << "the 500 W before training is outside";
    EXPECT_NEAR(*part(train, "gpu0").peak_w, 500, 1e-6);

    const auto& infer = s->phases[1];
    EXPECT_NEAR(infer.runtime_s, 5, 1e-9);
    EXPECT_NEAR(infer.node.energy_j, 5 * 400.0, 1e-6);
    EXPECT_NEAR(*infer.node.peak_w, 400, 1e-6) << "the training peak is outside";
    EXPECT_NEAR(part(infer, "gpu0").avg_w, 60, 1e-6);
    ASSERT_EQ(s->phase_totals.size(), 2U);
    EXPECT_NEAR(s->phase_totals[0].node.energy_j, node_j, 1e-6);
    EXPECT_TRUE(s->notes.empty()) << s->notes.front();
}

TEST(PhaseSummary, SummarizeWindowGivesAnyWindowOfARun) {
    test::FakeSysfs fs;
    test::TraceBuilder b{fs.path("/w.jptrace"), node_cpu_gpu()};
    test::RunSpec spec;
    spec.seconds = 40;
    spec.watts = load;
    b.run(spec);
    auto r = b.reader();
    const auto t0 = r.runs()[0].start_ns;
    auto f = summarize_window(r, r.runs()[0], t0 + 5 * test::k_s, t0 + 15 * test::k_s);
    ASSERT_TRUE(f);
    EXPECT_NEAR(f->node.energy_j, exact_joules(load, 0, 1, 5, 15), 1e-6);
    EXPECT_NEAR(f->runtime_s, 10, 1e-9);
    // The whole run through this API has the node's peak range as the run's summary does.
    const auto whole = summarize_window(r, r.runs()[0], t0, t0 + 40 * test::k_s);
    ASSERT_TRUE(whole && whole->node.peak_bound);
    EXPECT_LE(whole->node.peak_bound->low_w, *whole->node.peak_w);
    EXPECT_GE(whole->node.peak_bound->high_w, *whole->node.peak_w);
    // Clamped to the run.
    auto all = summarize_window(r, r.runs()[0], t0 - 100 * test::k_s, t0 + 100 * test::k_s);
    EXPECT_NEAR(all->runtime_s, 40, 1e-9);
    EXPECT_NEAR(all->node.energy_j, exact_joules(load, 0, 1, 0, 40), 1e-6);
}

TEST(PhaseSummary, OccurrencesOfOneNameAddUpAndNestingCountsOnce) {
    const auto summary = summary_with({{2, "begin", "epoch"},
                                       {6, "end", "epoch"},
                                       {12, "begin", "epoch"},
                                       {14, "begin", "epoch"},
                                       {16, "end", "epoch"},
                                       {20, "end", "epoch"},
                                       {33, "point", "ckpt"},
                                       {35, "begin", "tail"}});
    const auto* s = &summary;
    ASSERT_EQ(s->phases.size(), 4U); // three epochs (one nested) and the open tail
    ASSERT_EQ(s->phase_totals.size(), 2U);
    const auto& epoch = s->phase_totals[0];
    EXPECT_EQ(epoch.occurrences, 3U);
    // [2, 6] and [12, 20]; the nested [14, 16] lies inside and is not counted twice.
    EXPECT_NEAR(epoch.runtime_s, 4 + 8, 1e-9);
    const double e = exact_joules(load, 0, 1, 2, 6) + exact_joules(load, 0, 1, 12, 20);
    EXPECT_NEAR(epoch.node.energy_j, e, 1e-6);
    EXPECT_NEAR(epoch.node.avg_w, e / 12, 1e-6);
    EXPECT_NEAR(*epoch.node.peak_w, 900, 1e-6);
    // The peak's range is the highest occurrence's, as the peak is (a review: the first
    // occurrence's range, around 500 W, was kept beside the 900 W peak).
    for (const auto* item : {&epoch.node, &part(epoch, "gpu0")}) {
        ASSERT_TRUE(item->peak_bound) << item->name;
        EXPECT_LE(item->peak_bound->low_w, *item->peak_w) << item->name;
        EXPECT_GE(item->peak_bound->high_w, *item->peak_w) << item->name;
    }
    const auto& tail = s->phase_totals[1];
    EXPECT_TRUE(tail.open_at_end);
    EXPECT_NEAR(tail.runtime_s, 5, 1e-9) << "an open phase closes at the run's end";
    ASSERT_EQ(s->points.size(), 1U);
    EXPECT_EQ(s->points[0].name, "ckpt");
    EXPECT_NE(std::ranges::find_if(s->notes,
                                   [](const auto& n) {
                                       return n.find("'tail' was never ended") != std::string::npos;
                                   }),
              s->notes.end());
}

// A phase as long as the run has the run's figures, its peak range too; a name that occurs
// once is its own total.
TEST(PhaseSummary, APhaseAsLongAsTheRunHasTheRunsPeakRange) {
    const auto s = summary_with(
        {{0, "begin", "all"}, {40, "end", "all"}, {3, "begin", "one"}, {5, "end", "one"}});
    ASSERT_TRUE(s.node.peak_bound);
    ASSERT_EQ(s.phase_totals.size(), 2U);
    const auto& all = s.phase_totals[0];
    ASSERT_TRUE(all.node.peak_bound);
    EXPECT_EQ(all.node.peak_bound->low_w, s.node.peak_bound->low_w);
    EXPECT_EQ(all.node.peak_bound->high_w, s.node.peak_bound->high_w);
    EXPECT_NEAR(all.node.energy_j, s.node.energy_j, 1e-6);
    const auto& one = s.phase_totals[1];
    EXPECT_EQ(one.occurrences, 1U);
    EXPECT_EQ(one.node.energy_j, s.phases[1].node.energy_j);
    ASSERT_TRUE(one.node.peak_bound);
    EXPECT_LE(one.node.peak_bound->low_w, *one.node.peak_w);
    EXPECT_GE(one.node.peak_bound->high_w, *one.node.peak_w);
}

TEST(PhaseSummary, ThousandsOfOccurrencesAreTotalledInJsonAndListedOnlyOnRequest) {
    Markers m;
    for (int i = 0; i < 300; ++i) { // 300 steps of 0.1 s, a point each, and one epoch
        m.emplace_back(0.1 * i, "begin", "step");
        m.emplace_back((0.1 * i) + 0.05, "end", "step");
        m.emplace_back((0.1 * i) + 0.05, "point", "loss");
    }
    m.emplace_back(31, "begin", "epoch");
    m.emplace_back(39, "end", "epoch");
    const auto summary = summary_with(m);
    const auto* s = &summary;
    ASSERT_EQ(s->phases.size(), 301U);
    const auto j = run_to_json(*s);
    ASSERT_EQ(j["phases"].size(), 1U); // the epoch; the steps are totalled, not listed
    EXPECT_EQ(j["phases"][0]["name"], "epoch");
    EXPECT_EQ(j["phases_not_listed"],
              (nlohmann::json::parse(R"([{"name":"step","occurrences":300}])")));
    EXPECT_EQ(j["points_not_listed"],
              (nlohmann::json::parse(R"([{"name":"loss","occurrences":300}])")));
    EXPECT_TRUE(j["points"].empty());
    ASSERT_EQ(j["phase_totals"].size(), 2U);
    EXPECT_EQ(j["phase_totals"][0]["occurrences"], 300);
    const auto all = run_to_json(*s, true);
    EXPECT_EQ(all["phases"].size(), 301U);
    EXPECT_EQ(all["points"].size(), 300U);
    EXPECT_TRUE(all["phases_not_listed"].empty());
    // The text table counts them in plain digits.
    const auto text = format_text({aggregate_runs("job", {*s})});
    EXPECT_NE(text.find("phase step (×300)"), std::string::npos) << text;
}

TEST(PhaseSummary, ALongNameKeepsTheTablesColumnsAligned) {
    const std::string name = "a-phase-with-a-really-long-descriptive-name";
    const auto text = format_text(
        {aggregate_runs("job", {summary_with({{10, "begin", name}, {30, "end", name}})})});
    // The energy column (28 + 1 + 22 wide) ends at the same place on every row with figures.
    std::size_t rows = 0;
    std::istringstream lines{text};
    for (std::string line; std::getline(lines, line) && line.rfind("(mean", 0) != 0;) {
        if (line.find("phase " + name) != std::string::npos) {
            EXPECT_EQ(line, "  phase " + name) << "the name on a line of its own";
            continue;
        }
        if (line.rfind("  ", 0) != 0 || line.find("measured") == std::string::npos) {
            continue;
        }
        ++rows;
        ASSERT_GT(line.size(), 52U) << line;
        EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(line[50])) != 0 && line[51] == ' ')
            << line << "\n"
            << text;
    }
    EXPECT_EQ(rows, 6U) << text; // node and its 2 measured parts, for the run and the phase
}

TEST(PhaseSummary, RepeatsGiveMeanAndSampleStdPerPhaseName) {
    test::FakeSysfs fs;
    test::TraceBuilder b{fs.path("/r.jptrace"), node_cpu_gpu()};
    const std::vector<double> train_end = {20, 24, 28};
    std::vector<double> energies;
    std::vector<double> runtimes;
    for (double end : train_end) {
        test::RunSpec spec;
        spec.seconds = 40;
        spec.watts = load;
        spec.markers = {{10, "begin", "train"}, {end, "end", "train"}};
        b.run(spec);
        energies.push_back(exact_joules(load, 0, 1, 10, end));
        runtimes.push_back(end - 10);
    }
    auto r = b.reader();
    auto groups = summarize_trace(r);
    ASSERT_TRUE(groups);
    ASSERT_EQ(groups->size(), 1U);
    const auto& g = (*groups)[0];
    ASSERT_EQ(g.phases.size(), 1U);
    const auto& train = g.phases[0];
    EXPECT_EQ(train.name, "train");
    EXPECT_EQ(train.runs, 3U);
    const double mean = (energies[0] + energies[1] + energies[2]) / 3;
    double ss = 0;
    for (double x : energies) {
        ss += (x - mean) * (x - mean);
    }
    EXPECT_NEAR(train.node_energy_j.mean, mean, 1e-6);
    EXPECT_NEAR(train.node_energy_j.std, std::sqrt(ss / 2), 1e-6);
    EXPECT_NEAR(train.runtime_s.mean, 14, 1e-9);
    EXPECT_NEAR(train.runtime_s.std, 4, 1e-9);
    ASSERT_EQ(train.part_energy_j.size(), 3U); // cpu0.package, gpu0, rest
    EXPECT_EQ(train.part_energy_j[1].first, "gpu0");
    EXPECT_NEAR(train.part_energy_j[1].second.mean, 500 * 14.0, 1e-6);
    EXPECT_EQ(train.part_energy_j[2].first, "rest");
    EXPECT_NEAR(train.part_energy_j[2].second.mean, (900 - 250 - 500) * 14.0, 1e-6);

    const auto text = format_text(*groups);
    EXPECT_NE(text.find("phase train"), std::string::npos) << text;
    EXPECT_NE(text.find(fmt::format("{:.3f} ± {:.3f}", mean * 1e-3, std::sqrt(ss / 2) * 1e-3)),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(fmt::format("run 3 phases: train {:.3f} kJ, 900.0 W, 18.000 s",
                                    energies[2] * 1e-3)),
              std::string::npos)
        << text;
    const auto j = to_json(*groups);
    EXPECT_EQ(j["groups"][0]["phases"][0]["name"], "train");
    EXPECT_NEAR(j["groups"][0]["phases"][0]["node_energy_j"]["mean"].get<double>(), mean, 1e-6);
    EXPECT_EQ(j["groups"][0]["runs"][2]["phases"][0]["name"], "train");
    EXPECT_NEAR(j["groups"][0]["runs"][2]["phases"][0]["end_s"].get<double>(), 28, 1e-9);
}

TEST(PhaseSummary, EndWithoutBeginIsANoteNotAPhase) {
    test::FakeSysfs fs;
    test::TraceBuilder b{fs.path("/n.jptrace"), node_cpu_gpu()};
    test::RunSpec spec;
    spec.watts = load;
    spec.markers = {{3, "end", "ghost"}};
    b.run(spec);
    auto r = b.reader();
    auto s = summarize_run(r, r.runs()[0]);
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->phases.empty());
    ASSERT_EQ(s->notes.size(), 1U);
    EXPECT_NE(s->notes[0].find("ghost"), std::string::npos);
}

} // namespace
} // namespace jp::report
