// SPDX-License-Identifier: BSD-3-Clause
// The merged result of a job's node traces (report/job): nodes laid on one
// axis by their measured clock offsets, the job's energy and summed peak,
// stragglers, parts and phases across nodes, and partial results.
#include "job_nodes.hpp"
#include "report/job/format.hpp"
#include "report/job/job.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <optional>

namespace jp::report::job {
namespace {

using test::k_s;

TEST_F(JobMerge, NodesAreLaidOnOneAxisByTheirMeasuredClockOffsets) {
    node({.name = "a", .id = 0, .watts = 100});
    // b started 2 s after a, its clock 300 ms fast: by its own clock it started 2.3 s after.
    node({.name = "b",
          .id = 1,
          .true_start_ns = 2 * k_s,
          .clock_offset_ns = 300'000'000,
          .watts = 200});
    auto job = merge();
    ASSERT_TRUE(job) << job.error().message();
    ASSERT_EQ(job->nodes.size(), 2U);
    EXPECT_EQ(job->nodes[1].start_ns, 2 * k_s); // not 2.3 s
    EXPECT_EQ(job->nodes[1].end_ns, 12 * k_s);
    EXPECT_NEAR(job->runtime_s, 12.0, 1e-9);
    EXPECT_NEAR(job->energy_j, 1000.0 + 2000.0, 1e-6);
    EXPECT_NEAR(job->avg_w, 3000.0 / 12.0, 1e-6);
    ASSERT_TRUE(job->peak_w);
    EXPECT_NEAR(*job->peak_w, 300.0, 1e-6); // only while both ran
    EXPECT_GE(job->peak_at_ns, 2 * k_s);
    EXPECT_LT(job->peak_at_ns, 10 * k_s);
    EXPECT_EQ(job->step_ns, k_s);
    EXPECT_EQ(job->clock_error_ns, 2'000'000);
    EXPECT_TRUE(job->clocks_measured);
    EXPECT_EQ(job->job_id, "42");
    EXPECT_EQ(job->step, "0");
    EXPECT_FALSE(job->partial);
    EXPECT_EQ(job->status, "complete");
    // The job's profile holds both nodes' power: 100 W, then 300 W, then 200 W.
    ASSERT_FALSE(job->power.empty());
    EXPECT_NEAR(job->power.front(), 100.0, 1e-6);
    EXPECT_NEAR(job->power.back(), 200.0, 1e-6);
}

TEST_F(JobMerge, ANodeThatEndsLateIsNamedAStraggler) {
    node({.name = "n0", .id = 0, .seconds = 10, .nnodes = 3});
    node({.name = "n1", .id = 1, .seconds = 10.2, .nnodes = 3});
    node({.name = "n2", .id = 2, .seconds = 15, .nnodes = 3});
    auto job = merge();
    ASSERT_TRUE(job) << job.error().message();
    ASSERT_EQ(job->stragglers.size(), 1U);
    EXPECT_EQ(job->stragglers[0].node, "n2");
    EXPECT_EQ(job->stragglers[0].edge, "end");
    EXPECT_NEAR(job->stragglers[0].late_s, 4.8, 1e-6);
    EXPECT_NEAR(job->runtime.max, 15.0, 1e-9);
    EXPECT_EQ(job->runtime.max_node, "n2");
    EXPECT_EQ(job->energy.min_node, "n0");
}

TEST_F(JobMerge, PartsAndPhasesAreSummedAcrossNodes) {
    node({.name = "a",
          .id = 0,
          .watts = 300,
          .packages = 2,
          .dram = true,
          .markers = {{1, "begin", "train"}, {4, "end", "train"}}});
    node({.name = "b",
          .id = 1,
          .true_start_ns = k_s,
          .watts = 100,
          .packages = 2,
          .markers = {{2, "begin", "train"}, {7, "end", "train"}}});
    auto job = merge();
    ASSERT_TRUE(job) << job.error().message();
    ASSERT_EQ(job->parts.size(), 2U);
    EXPECT_EQ(job->parts[0].name, "cpu_package");
    EXPECT_NEAR(job->parts[0].energy_j, 2000.0 + 1000.0, 1e-6); // a: 2 of its 3 channels
    EXPECT_EQ(job->parts[0].nodes, 2U);
    EXPECT_EQ(job->parts[0].parts, 4U);
    // The row names what it sums as the nodes' own tables do, each name once.
    EXPECT_EQ(job->parts[0].channels, (std::vector<std::string>{"cpu0.package", "cpu1.package"}));
    EXPECT_NE(format_text(*job).find("measured: cpu0.package + cpu1.package"), std::string::npos)
        << format_text(*job);
    EXPECT_EQ(to_json(*job)["parts"][1]["channel_names"], nlohmann::json::array({"cpu0.dram"}));
    EXPECT_EQ(job->parts[1].name, "dram");
    EXPECT_EQ(job->parts[1].nodes, 1U);
    EXPECT_NEAR(job->parts[1].share, 1000.0 / 4000.0, 1e-9);
    ASSERT_EQ(job->phases.size(), 1U);
    const auto& p = job->phases[0];
    EXPECT_EQ(p.nodes, 2U);
    EXPECT_EQ(p.begin_ns, 1 * k_s); // a's begin
    EXPECT_EQ(p.end_ns, 8 * k_s);   // b's end: 1 s + 7 s
    EXPECT_NEAR(p.energy_j, 300.0 * 3 + 100.0 * 5, 1e-6);
    EXPECT_NEAR(p.duration_s.max, 5.0, 1e-9);
    EXPECT_EQ(p.duration_s.max_node, "b");
}

// Each node's counters are read every second with no stated limit: each channel may lag
// by a second at twice its power, so a's three 100 W channels add 3 × 200 J at each edge
// and b's two 50 W channels 2 × 100 J; the job's bound adds the nodes' (the worst case).
TEST_F(JobMerge, TheJobsEnergyCarriesTheNodesBoundsAdded) {
    node({.name = "a", .id = 0, .watts = 300, .packages = 2, .dram = true});
    node({.name = "b", .id = 1, .watts = 100, .packages = 2});
    auto job = merge();
    ASSERT_TRUE(job) << job.error().message();
    ASSERT_TRUE(job->bound);
    EXPECT_NEAR(job->bound->half_width(), 600 + 200, 0.01);
    EXPECT_NEAR(job->bound->low,
                job->nodes[0].run.node.bound->low + job->nodes[1].run.node.bound->low, 1e-9);
    EXPECT_EQ(job->bound->dominant, "edge staleness");
    ASSERT_TRUE(job->parts[0].bound); // the four packages
    EXPECT_NEAR(job->parts[0].bound->half_width(), 2 * 200 + 2 * 100, 0.01);
    const auto text = format_text(*job);
    EXPECT_NE(text.find("Energy ≥ 4.000 kJ (sensors: 3.200–4.800 kJ, edge staleness"),
              std::string::npos)
        << text;
    // These nodes have no node meter: their figure is a lower bound, and so the bound is
    // the measured parts'. sacct's whole-node figure above it is no contradiction.
    job->slurm = SlurmEnergy{5000, "42.0"};
    EXPECT_NE(format_text(*job).find("above the bound of the parts jouleprof measured"),
              std::string::npos);
    EXPECT_TRUE(to_json(*job).at("slurm").at("inside_bound").is_null());
    job->slurm = SlurmEnergy{3000, "42.0"}; // below the parts: a disagreement
    EXPECT_NE(format_text(*job).find("(outside jouleprof's sensors' bound)"), std::string::npos);
    EXPECT_EQ(to_json(*job).at("slurm").at("inside_bound"), false);
    job->slurm.reset();
    const auto j = to_json(*job);
    EXPECT_NEAR(j.at("energy_high_j").get<double>(), 4800, 0.01);
    EXPECT_EQ(j.at("measurable"), true);
    EXPECT_TRUE(j.at("parts").at(0).contains("energy_low_j"));
}

// On a shared GPU node the trace holds every GPU: an idle GPU given to the step
// is the job's waste; the GPUs not given to it (idle or busy) are not.
TEST_F(JobMerge, IdleGpusAreTheStepsOnlyWhenSlurmGaveThemToTheStep) {
    std::vector<Channel> chans{
        test::channel("cpu0.package", Domain::cpu_package, Quantity::energy)};
    for (int g = 0; g < 3; ++g) {
        chans.push_back(test::channel(fmt::format("gpu{}", g), Domain::gpu, Quantity::energy));
        chans.push_back(
            test::channel(fmt::format("gpu{}.util", g), Domain::gpu, Quantity::utilization));
    }
    test::TraceBuilder b(dir / "g.jptrace", chans,
                         {{"epoch_wall_ns", std::to_string(k_wall)},
                          {"slurm.job_id", "42"},
                          {"slurm.step", "42.0"},
                          {"slurm.node", "g"},
                          {"slurm.node_id", "0"},
                          {"slurm.nnodes", "1"},
                          {"slurm.env.SLURM_STEP_GPUS", "0,1"}});
    // gpu0 busy at 300 W (the step's), gpu1 idle at 60 W (the step's), gpu2 idle at 50 W (not).
    b.run(test::make_run("slurm", 10, [](std::size_t ch, double) {
        return std::array<double, 7>{100, 300, 95, 60, 0, 50, 0}[ch];
    }));
    auto job = merge();
    ASSERT_TRUE(job) << job.error().message();
    ASSERT_TRUE(job->nodes[0].gpus_known);
    EXPECT_NEAR(job->idle_gpu_j, 600.0, 1e-6);
    EXPECT_NEAR(job->other_gpu_j, 500.0, 1e-6);
    const auto text = format_text(*job);
    EXPECT_NE(text.find("    g gpu1: 600.0 J"), std::string::npos) << text;
    EXPECT_EQ(text.find("    g gpu2: 500.0 J ("), text.rfind("    g gpu2: 500.0 J (")) << text;
    EXPECT_NE(text.find("    g gpu2: 500.0 J (the step's GPUs: 0,1)"), std::string::npos) << text;
    EXPECT_EQ(to_json(*job)["nodes"][0]["step_gpus"], "0,1");

    // GPUs named by UUID are not mapped: every idle GPU counts, as before.
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    test::TraceBuilder u(dir / "u.jptrace", chans,
                         {{"epoch_wall_ns", std::to_string(k_wall)},
                          {"slurm.job_id", "42"},
                          {"slurm.step", "42.0"},
                          {"slurm.node", "u"},
                          {"slurm.env.CUDA_VISIBLE_DEVICES", "GPU-8a1f"}});
    u.run(test::make_run("slurm", 10, [](std::size_t ch, double) {
        return std::array<double, 7>{100, 300, 95, 60, 0, 50, 0}[ch];
    }));
    auto unmapped = merge();
    ASSERT_TRUE(unmapped) << unmapped.error().message();
    EXPECT_FALSE(unmapped->nodes[0].gpus_known);
    EXPECT_NEAR(unmapped->idle_gpu_j, 1100.0, 1e-6);
    EXPECT_EQ(unmapped->other_gpu_j, 0.0);
}

TEST_F(JobMerge, AMissingNodeMakesThePartialResultSaySo) {
    node({.name = "n0", .id = 0, .nnodes = 3});
    node({.name = "n2", .id = 2, .nnodes = 3});
    auto job = merge();
    ASSERT_TRUE(job) << job.error().message();
    EXPECT_TRUE(job->partial);
    ASSERT_EQ(job->missing.size(), 1U);
    EXPECT_EQ(job->missing[0], "node id 1");
    EXPECT_NEAR(job->energy_j, 2000.0, 1e-6); // what was measured, not dropped
    const auto text = format_text(*job);
    EXPECT_NE(text.find("2 of 3 nodes"), std::string::npos) << text;
    EXPECT_NE(text.find("PARTIAL"), std::string::npos) << text;
    EXPECT_NE(text.find("missing: node id 1"), std::string::npos) << text;
    const auto j = to_json(*job);
    EXPECT_TRUE(j["partial"].get<bool>());
    EXPECT_EQ(j["nodes_expected"].get<int>(), 3);
}

TEST_F(JobMerge, ANodeWhoseMonitorDiedIsPartialAndNotAStraggler) {
    node({.name = "n0", .id = 0, .seconds = 10});
    {
        auto w =
            trace::Writer::create(dir / "n1.jptrace", {{"epoch_wall_ns", std::to_string(k_wall)},
                                                       {"slurm.job_id", "42"},
                                                       {"slurm.step", "42.0"},
                                                       {"slurm.node", "n1"},
                                                       {"slurm.node_id", "1"},
                                                       {"slurm.nnodes", "2"}});
        ASSERT_TRUE(w);
        const std::vector<Channel> chans{
            test::channel("cpu0.package", Domain::cpu_package, Quantity::energy)};
        ASSERT_TRUE(w->add_channels(chans));
        trace::RunInfo r;
        r.label = "slurm";
        r.id = *w->begin_run(r);
        std::vector<trace::SampleRecord> s;
        for (int i = 0; i <= 3; ++i) {
            s.push_back({0, 0, i * k_s, 50.0 * i});
        }
        ASSERT_TRUE(w->append(s, r.id));
        ASSERT_TRUE(w->commit()); // no end: the monitor was killed
    }
    auto job = merge();
    ASSERT_TRUE(job) << job.error().message();
    ASSERT_EQ(job->nodes.size(), 2U);
    EXPECT_FALSE(job->nodes[1].ended);
    EXPECT_EQ(job->nodes[1].end_ns, 3 * k_s);
    EXPECT_TRUE(job->partial);
    EXPECT_TRUE(job->stragglers.empty());
    EXPECT_FALSE(job->clocks_measured); // n1 has no offset
    EXPECT_NEAR(job->energy_j, 1000.0 + 150.0, 1e-6);
    EXPECT_NE(format_text(*job).find("no end"), std::string::npos);
}

TEST_F(JobMerge, AnUnreadableTraceIsListedAndTheOthersMerged) {
    node({.name = "n0", .id = 0});
    node({.name = "n1", .id = 1});
    std::ofstream(dir / "n2.jptrace") << "not a trace";
    auto job = merge();
    ASSERT_TRUE(job) << job.error().message();
    EXPECT_EQ(job->nodes.size(), 2U);
    ASSERT_EQ(job->unreadable.size(), 1U);
    EXPECT_NE(job->unreadable[0].find("n2.jptrace"), std::string::npos);
    EXPECT_TRUE(job->partial);
}

TEST_F(JobMerge, TheSameTraceTwiceCountsOnceAndStepsAreNotMixed) {
    const auto a = node({.name = "a", .id = 0, .nnodes = 1});
    const std::vector<std::filesystem::path> twice{a, dir / "." / "a.jptrace"};
    auto job = merge_nodes(twice);
    ASSERT_TRUE(job) << job.error().message();
    EXPECT_EQ(job->nodes.size(), 1U);
    EXPECT_NEAR(job->energy_j, 1000.0, 1e-6);
    const auto other = node({.name = "b", .id = 1, .step = "1"});
    const std::vector<std::filesystem::path> mixed{a, other};
    auto bad = merge_nodes(mixed);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message().find("not 42.0"), std::string::npos) << bad.error().message();
}

TEST_F(JobMerge, StepDirectoriesAreFoundUnderAJobDirectory) {
    const auto top = dir;
    dir = top / "42.0";
    std::filesystem::create_directories(dir);
    node({.name = "a", .id = 0, .nnodes = 1});
    std::filesystem::create_directories(top / "42.1");
    std::filesystem::create_directories(top / "empty");
    dir = top / "42.1";
    node({.name = "a", .id = 0, .step = "1", .nnodes = 1});
    dir = top;
    auto steps = step_dirs_in(top);
    ASSERT_TRUE(steps) << steps.error().message();
    ASSERT_EQ(steps->size(), 2U);
    EXPECT_EQ((*steps)[0].filename(), "42.0");
    EXPECT_FALSE(step_dirs_in(top / "empty"));
    EXPECT_TRUE(wait_for_nodes(top / "42.0", std::chrono::milliseconds{100}));
}

} // namespace
} // namespace jp::report::job
