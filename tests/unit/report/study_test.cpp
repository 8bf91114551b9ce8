// SPDX-License-Identifier: BSD-3-Clause
// The study's table over results files with known content: rows per
// workload × mode × node type × setting, results of different node types side
// by side, the same node type pooled, failed cells, shares, ratios and phases.
#include "report/study.hpp"
#include "trace_builder.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace jp::test {
namespace {

using report::StudyKey;
using report::StudyRow;
using report::StudyTable;

std::vector<Channel> node_cpu_gpu() {
    return {channel("node", Domain::node, Quantity::energy),
            channel("cpu0.package", Domain::cpu_package, Quantity::energy),
            channel("gpu0", Domain::gpu, Quantity::energy)};
}

// Node, CPU and GPU power; `scale` makes a node type draw more or less.
Profile load(double scale) {
    return [scale](std::size_t ch, double) {
        static constexpr double w[] = {500, 200, 100};
        return w[ch] * scale;
    };
}

class StudyTableTest : public ::testing::Test {
protected:
    // A results file of node_type with the given measured runs (label, seconds).
    std::filesystem::path results(const std::string& name,
                                  const std::string& node_type,
                                  double scale,
                                  const std::vector<std::pair<std::string, double>>& runs) {
        TraceBuilder b{dir / name, node_cpu_gpu(), {{"node_type", node_type}, {"study", "s"}}};
        for (const auto& [label, seconds] : runs) {
            auto warm = make_run(label, 1, load(scale));
            warm.kind = "warmup";
            b.run(warm);
            b.run(make_run(label, seconds, load(scale)));
        }
        return b.path();
    }

    static const StudyRow& row(const StudyTable& t, const StudyKey& key, const std::string& type) {
        for (const auto& r : t.rows) {
            if (r.key == key && r.node_type == type) {
                return r;
            }
        }
        ADD_FAILURE() << "no row " << report::study_label(key) << " on " << type;
        return t.rows.front();
    }

    StudyTable table(const std::vector<std::filesystem::path>& traces) {
        auto t = report::summarize_study(traces);
        EXPECT_TRUE(t) << t.error().message();
        return t ? *t : StudyTable{};
    }

    void SetUp() override {
        dir = std::filesystem::temp_directory_path() /
              fmt::format("jp-study-test-{}-{}", ::getpid(),
                          ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(dir);
    }
    void TearDown() override { std::filesystem::remove_all(dir); }
    std::filesystem::path dir;
};

TEST_F(StudyTableTest, TwoNodeTypesMergeIntoOneTableSideBySide) {
    const auto cpu =
        results("cpu.jptrace", "cpu-node", 1.0, {{"lstm/train", 40}, {"lstm/predict", 10}});
    const auto gpu =
        results("gpu.jptrace", "gpu-node", 2.0, {{"lstm/train", 10}, {"lstm/predict", 5}});
    const auto t = table({cpu, gpu});
    EXPECT_EQ(t.node_types, (std::vector<std::string>{"cpu-node", "gpu-node"}));
    ASSERT_EQ(t.rows.size(), 4U);
    std::vector<std::string> order;
    for (const auto& r : t.rows) {
        order.push_back(report::study_label(r.key) + " " + r.node_type);
    }
    EXPECT_EQ(order, (std::vector<std::string>{"lstm/train cpu-node", "lstm/train gpu-node",
                                               "lstm/predict cpu-node", "lstm/predict gpu-node"}));
    const auto& train_gpu = row(t, {"lstm", "train", ""}, "gpu-node");
    ASSERT_TRUE(train_gpu.ok);
    EXPECT_EQ(train_gpu.runs, 1U) << "warm-ups are not measured runs";
    EXPECT_NEAR(train_gpu.ok->node_energy_j.mean, 1000 * 10, 1e-6);
    EXPECT_NEAR(train_gpu.ok->node_avg_w.mean, 1000, 1e-6);
    EXPECT_NEAR(train_gpu.ok->runtime_s.mean, 10, 1e-9);
    // The GPU node: twice the power for a quarter of the time.
    ASSERT_TRUE(train_gpu.energy_ratio);
    EXPECT_NEAR(*train_gpu.energy_ratio, (1000.0 * 10) / (500.0 * 40), 1e-9);
    EXPECT_NEAR(*train_gpu.runtime_ratio, 0.25, 1e-9);
    EXPECT_NEAR(*row(t, {"lstm", "train", ""}, "cpu-node").energy_ratio, 1.0, 1e-12);
}

TEST_F(StudyTableTest, TheTableSaysWhichFiguresAreLowerBoundsOrEstimated) {
    // No node meter and no rest-of-node model: the node is the sum of its parts.
    TraceBuilder parts{dir / "parts.jptrace",
                       {channel("cpu0.package", Domain::cpu_package, Quantity::energy)},
                       {{"node_type", "vm"}, {"study", "s"}}};
    parts.run(make_run("w/run", 5, [](std::size_t, double) { return 40.0; }));
    TraceBuilder est{
        dir / "est.jptrace",
        {channel("cpu.estimate", Domain::cpu_package, Quantity::power, Provenance::estimated)},
        {{"node_type", "laptop"}, {"study", "s"}, {"node.rest_watts", "10"}}};
    est.run(make_run("w/run", 5, [](std::size_t, double) { return 30.0; }));
    const auto t = table({parts.path(), est.path()});
    const auto text = report::format_study(t);
    EXPECT_NE(text.find("Consumption [J]"), std::string::npos) << "200 J: in J" << text;
    EXPECT_NE(text.find("≥ 200.0"), std::string::npos) << text;
    EXPECT_NE(text.find("200.0 *"), std::string::npos) << "30 W + 10 W model for 5 s\n" << text;
    EXPECT_NE(text.find("≥: a lower bound"), std::string::npos) << text;
    EXPECT_NE(text.find("*: estimated"), std::string::npos) << text;
    const auto j = report::study_json(t);
    EXPECT_EQ(j["rows"][0]["provenance"], "derived");
    EXPECT_EQ(j["rows"][0]["lower_bound"], true);
    EXPECT_EQ(j["rows"][1]["provenance"], "estimated");
    EXPECT_EQ(j["rows"][1]["lower_bound"], false);
    // Measured node: neither mark.
    const auto measured =
        report::format_study(table({results("m.jptrace", "m", 1.0, {{"w/run", 2}})}));
    EXPECT_EQ(measured.find("≥"), std::string::npos) << measured;
    EXPECT_EQ(measured.find(" *"), std::string::npos) << measured;
}

TEST_F(StudyTableTest, TheSameNodeTypeAndLabelPoolTheirRuns) {
    const auto a = results("a.jptrace", "cpu-node", 1.0, {{"lstm/train", 10}});
    const auto b = results("b.jptrace", "cpu-node", 1.0, {{"lstm/train", 20}, {"lstm/train", 30}});
    const auto t = table({a, b});
    ASSERT_EQ(t.rows.size(), 1U);
    const auto& r = t.rows.front();
    EXPECT_EQ(r.runs, 3U);
    ASSERT_TRUE(r.ok);
    EXPECT_NEAR(r.ok->runtime_s.mean, 20, 1e-9);
    EXPECT_NEAR(r.ok->runtime_s.std, 10, 1e-9); // sample std of 10, 20, 30
    EXPECT_NEAR(r.ok->node_energy_j.mean, 500 * 20, 1e-6);
    EXPECT_FALSE(r.energy_ratio) << "nothing to compare with";
    EXPECT_EQ(t.traces, (std::vector<std::string>{a.string(), b.string()}));
}

TEST_F(StudyTableTest, SharesOfTheNodesEnergyByKindOfPart) {
    const auto t = table({results("s.jptrace", "n", 1.0, {{"w/m@x", 10}})});
    ASSERT_EQ(t.rows.size(), 1U);
    const auto& r = t.rows.front();
    EXPECT_EQ(r.key, (StudyKey{"w", "m", "x"}));
    std::vector<std::pair<std::string, double>> shares;
    for (const auto& s : r.shares) {
        shares.emplace_back(s.name, s.fraction);
    }
    ASSERT_EQ(shares.size(), 3U);
    EXPECT_EQ(shares[0].first, "cpu");
    EXPECT_NEAR(shares[0].second, 200.0 / 500, 1e-9);
    EXPECT_EQ(shares[1].first, "gpu");
    EXPECT_NEAR(shares[1].second, 100.0 / 500, 1e-9);
    EXPECT_EQ(shares[2].first, "rest");
    EXPECT_NEAR(shares[2].second, 200.0 / 500, 1e-9);
}

TEST_F(StudyTableTest, FailedRunsAreCountedAndLeftOutOfTheFigures) {
    TraceBuilder b{dir / "f.jptrace", node_cpu_gpu(), {{"node_type", "cpu-node"}}};
    b.run(make_run("w/train", 10, load(1)));
    auto bad = make_run("w/train", 3, load(1));
    bad.exit_code = 3;
    b.run(bad);
    auto warm = make_run("w/predict", 1, load(1));
    warm.kind = "warmup";
    warm.exit_code = 2;
    b.run(warm);
    const auto t = table({b.path()});
    ASSERT_EQ(t.rows.size(), 2U);
    const auto& train = row(t, {"w", "train", ""}, "cpu-node");
    EXPECT_EQ(train.runs, 2U);
    EXPECT_EQ(train.failures, (std::vector<int>{3}));
    ASSERT_TRUE(train.ok);
    EXPECT_EQ(train.ok->runs.size(), 1U);
    EXPECT_NEAR(train.ok->runtime_s.mean, 10, 1e-9);
    const auto& predict = row(t, {"w", "predict", ""}, "cpu-node");
    EXPECT_FALSE(predict.ok);
    EXPECT_EQ(predict.warmup_failures, (std::vector<int>{2}));
    const auto text = report::format_study(t);
    EXPECT_NE(text.find("failed (exit status 3) (1 of 2 runs)"), std::string::npos) << text;
    EXPECT_NE(text.find("warm-up failed (exit status 2)"), std::string::npos) << text;
    const auto j = report::study_json(t);
    EXPECT_FALSE(j["rows"][0]["ok"].get<bool>());
    EXPECT_EQ(j["rows"][1]["warmup_failures"][0], 2);
}

TEST_F(StudyTableTest, PhasesMarkedByTheJobGetTheirOwnFigures) {
    TraceBuilder b{dir / "p.jptrace", node_cpu_gpu(), {{"node_type", "gpu-node"}}};
    for (int i = 0; i < 2; ++i) {
        auto spec = make_run("lstm/train", 40, load(1));
        spec.markers = {{10, "begin", "epoch"},
                        {20, "end", "epoch"},
                        {20, "begin", "epoch"},
                        {30, "end", "epoch"}};
        b.run(spec);
    }
    const auto t = table({b.path()});
    ASSERT_EQ(t.rows.size(), 1U);
    ASSERT_TRUE(t.rows[0].ok);
    ASSERT_EQ(t.rows[0].ok->phases.size(), 1U);
    const auto& epoch = t.rows[0].ok->phases[0];
    EXPECT_EQ(epoch.occurrences, 4U);
    EXPECT_NEAR(epoch.node_energy_j.mean, 500 * 20, 1e-6);
    const auto text = report::format_study(t);
    EXPECT_NE(text.find("phase epoch"), std::string::npos) << text;
    EXPECT_NE(text.find("4 occurrences"), std::string::npos) << text;
    const auto j = report::study_json(t);
    EXPECT_EQ(j["rows"][0]["phases"][0]["name"], "epoch");
    EXPECT_NEAR(j["rows"][0]["phases"][0]["shares"]["gpu"].get<double>(), 0.2, 1e-9);
}

TEST_F(StudyTableTest, TextHasTheStudysColumnsAndEveryRow) {
    const auto cpu = results("c.jptrace", "cpu-node", 1.0, {{"lstm/train@2-threads", 40}});
    const auto gpu = results("g.jptrace", "gpu-node", 2.0, {{"lstm/train@2-threads", 10}});
    const auto text = report::format_study(table({cpu, gpu}));
    for (const char* s : {"workload", "mode", "node type", "setting", "Consumption [kJ]",
                          "Average power [W]", "Runtime", "× energy", "CPU", "GPU", "rest",
                          "status", "cpu-node", "gpu-node", "2-threads", "40.000 s", "0.500"}) {
        EXPECT_NE(text.find(s), std::string::npos) << s << "\n" << text;
    }
    EXPECT_NE(text.find(fmt::format("{:.3f}", 500 * 40 * 1e-3)), std::string::npos) << text;
}

// The node's counter is read every second, its limit unknown: it may lag by a second at
// twice the 500 W seen, so each edge adds 1 kJ (and its 1 mJ quantum) to the bound.
TEST_F(StudyTableTest, TheConsumptionCarriesTheSensorsBoundBesideTheRunsSpread) {
    const auto cpu = results("c.jptrace", "cpu-node", 1.0, {{"lstm/train", 40}});
    const auto t = table({cpu});
    const auto text = report::format_study(t);
    EXPECT_NE(text.find("± sensors"), std::string::npos) << text;
    EXPECT_NE(text.find("20.000      1.000"), std::string::npos) << text; // one run: no spread
    EXPECT_NE(text.find("± sensors: half the sensors' bound"), std::string::npos) << text;
    const auto j = report::study_json(t)["rows"][0]["node_energy_j"];
    EXPECT_NEAR(j["sensor_bound"].get<double>(), 1000.001, 1e-6);
    EXPECT_NEAR(j["sensor_low"].get<double>(), 20000 - 1000.001, 1e-6);
}

TEST_F(StudyTableTest, ATraceWithoutNodeTypeUsesItsHost) {
    TraceBuilder b{dir / "h.jptrace", node_cpu_gpu(), {{"host", "n17"}}};
    b.run(make_run("default", 5, load(1)));
    const auto t = table({b.path()});
    ASSERT_EQ(t.rows.size(), 1U);
    EXPECT_EQ(t.rows[0].node_type, "n17");
    EXPECT_EQ(t.rows[0].key, (StudyKey{"default", "", ""}));
}

} // namespace
} // namespace jp::test
