// SPDX-License-Identifier: BSD-3-Clause
// The step's share of its nodes in the merged result (report/job/shares.cpp): each
// node's share as its monitor recorded it (`record --job`), summed; a node without
// one counted whole; nodes the step had to itself keep the nodes' figures.
#include "job_nodes.hpp"
#include "report/job/format.hpp"

#include <algorithm>
#include <gtest/gtest.h>

namespace jp::report::job {
namespace {

TEST_F(JobMerge, TheStepsShareOfSharedNodesIsSummedBesideTheNodes) {
    // Each node: 100 W for 10 s (1 kJ); idle 10 W, half of it the step's (1 of 2 CPUs);
    // the 900 J above idle split by CPU time: the step used a quarter on a, half on b.
    node({.name = "a", .id = 0, .job_cpu = 0.25});
    node({.name = "b", .id = 1, .job_cpu = 0.5});
    auto job = merge();
    ASSERT_TRUE(job) << job.error().message();
    ASSERT_TRUE(job->share);
    const auto& s = *job->share;
    EXPECT_EQ(s.attributed, 2U);
    EXPECT_EQ(s.exclusive, 0U);
    EXPECT_FALSE(s.all_exclusive());
    EXPECT_NEAR(s.share.job_idle_j, 50 + 50, 1e-6);
    EXPECT_NEAR(s.share.job_dynamic_j, 225 + 450, 1e-6);
    EXPECT_NEAR(s.share.unallocated_j, 50 + 50, 1e-6);
    EXPECT_NEAR(s.share.other_j, 675 + 450, 1e-6);
    EXPECT_NEAR(s.job_j(), 775, 1e-6);
    EXPECT_NEAR(s.share.node_j(), job->energy_j, 1e-3); // adds up to the nodes
    const auto text = format_text(*job);
    EXPECT_NE(text.find("Step's share ≥ 775.0 J"), std::string::npos) << text;
    EXPECT_NE(text.find("Nodes' energy ≥ 2.000 kJ"), std::string::npos) << text;
    EXPECT_NE(text.find("Method: "), std::string::npos) << text;
    const auto j = to_json(*job);
    const auto& a = j.at("attribution");
    EXPECT_NEAR(a.at("job_j").get<double>(), 775, 1e-6);
    EXPECT_NEAR(a.at("node_j").get<double>(), 2000, 1e-6);
    EXPECT_NEAR(a.at("idle_j").get<double>() + a.at("dynamic_j").get<double>() +
                    a.at("unallocated_j").get<double>() + a.at("other_j").get<double>(),
                2000, 1e-3);
    EXPECT_EQ(a.at("nodes_attributed"), 2);
    EXPECT_FALSE(a.at("exclusive").get<bool>());
}

TEST_F(JobMerge, OtherJobsOnEachNodeAreSaidNodeByNode) {
    // a: 3 other jobs, 2 at once, held CPU 0 with the step; b: its daemon saw none; c: no
    // jouleprofd there (no ledger), so nothing is known of other jobs on it.
    // A ledger in which `holders` jobs held the step's CPU 0 throughout.
    const auto ledger = [](int holders, int others, int at_once) {
        return fmt::format(R"({{"cpus":[0],"segments":[[0,[[{},1]]]],"other_jobs":{},)"
                           R"("most_at_once":{},"complete_from_ns":0}})",
                           holders, others, at_once);
    };
    node({.name = "a", .id = 0, .nnodes = 3, .job_cpu = 0.25, .ledger = ledger(3, 3, 2)});
    node({.name = "b", .id = 1, .nnodes = 3, .job_cpu = 0.5, .ledger = ledger(1, 0, 0)});
    node({.name = "c", .id = 2, .nnodes = 3, .job_cpu = 0.5});
    auto job = merge();
    ASSERT_TRUE(job) << job.error().message();
    ASSERT_TRUE(job->share);
    const auto& s = *job->share;
    EXPECT_EQ(s.other_jobs_at_once, 2U);
    EXPECT_EQ(other_jobs_text(s),
              "other jobs on 1 of 2 nodes (a: 3; at most 2 at once on one node); no ledger on c: "
              "unknown there");
    // a's idle power was shared by three holders of CPU 0: the step pays a third of its half.
    EXPECT_NEAR(s.share.job_idle_j, 50.0 / 3 + 50 + 50, 1e-6);
    EXPECT_NEAR(s.share.node_j(), job->energy_j, 1e-3); // still adds up to the nodes
    const auto text = format_text(*job);
    EXPECT_NE(text.find("  Jobs beside it (jouleprofd): other jobs on 1 of 2 nodes"),
              std::string::npos)
        << text;
    const auto a = to_json(*job).at("attribution");
    EXPECT_EQ(a.at("other_jobs_by_node"), nlohmann::json::parse(R"({"a":3,"b":0,"c":null})"));
    EXPECT_EQ(a.at("other_jobs_at_once"), 2);
    // Alone wherever a daemon looked: said once, plainly.
    ShareAcross alone;
    alone.other_jobs = {{"a", 0}, {"b", 0}};
    EXPECT_EQ(other_jobs_text(alone), "");
    alone.other_jobs.emplace_back("c", std::nullopt);
    EXPECT_EQ(other_jobs_text(alone),
              "no other jobs on the 2 nodes with a ledger; no ledger on c: unknown there");
    // Another job too short to be counted at once on the floor's grid: no "at most 0".
    ShareAcross brief;
    brief.other_jobs = {{"a", 1}};
    EXPECT_EQ(other_jobs_text(brief), "other jobs on 1 of 1 node (a: 1)");
    // Two traces with one node's name (a copy?): the JSON keeps both.
    JobResult twice;
    twice.share = ShareAcross{};
    twice.share->other_jobs = {{"n1", 2}, {"n1", 0}};
    EXPECT_EQ(to_json(twice).at("attribution").at("other_jobs_by_node"),
              nlohmann::json::parse(R"({"n1":2,"n1#2":0})"));
    // No daemon anywhere: nothing (the node's own notes say what it could not know).
    ShareAcross none;
    none.other_jobs = {{"a", std::nullopt}};
    EXPECT_EQ(other_jobs_text(none), "");
}

TEST_F(JobMerge, ANodeWithoutAShareCountsWholeAndIsNamed) {
    node({.name = "a", .id = 0, .job_cpu = 0.5});
    node({.name = "b", .id = 1}); // measured without --job (an older plugin)
    auto job = merge();
    ASSERT_TRUE(job) << job.error().message();
    ASSERT_TRUE(job->share);
    EXPECT_EQ(job->share->whole, std::vector<std::string>{"b"});
    EXPECT_NEAR(job->share->job_j(), 500 + 1000, 1e-6);
    EXPECT_FALSE(job->share->share.job_bound); // a whole node is no bound on the step's share
    EXPECT_TRUE(std::ranges::any_of(job->notes, [](const std::string& n) {
        return n.starts_with("1 node recorded no share (b)");
    }));
    EXPECT_TRUE(to_json(*job).at("attribution").at("nodes_counted_whole") ==
                nlohmann::json::array({"b"}));
}

TEST_F(JobMerge, NodesTheStepHadToItselfKeepTheNodesFigures) {
    // Given every CPU, all memory, every GPU, and all the CPU time: exclusive.
    node({.name = "a", .id = 0, .job_cpu = 1.0});
    node({.name = "b", .id = 1, .job_cpu = 1.0});
    auto job = merge();
    ASSERT_TRUE(job) << job.error().message();
    ASSERT_TRUE(job->share);
    EXPECT_TRUE(job->share->all_exclusive());
    EXPECT_NEAR(job->share->job_j(), job->energy_j, 1e-3);
    const auto text = format_text(*job);
    EXPECT_NE(text.find("The step had every node to itself"), std::string::npos) << text;
    EXPECT_NE(text.find("  Energy ≥ 2.000 kJ"), std::string::npos) << text;
    EXPECT_EQ(text.find("Step's share"), std::string::npos) << text;
}

TEST_F(JobMerge, TracesWithoutSharesHaveNoAttribution) {
    node({.name = "a", .id = 0});
    node({.name = "b", .id = 1});
    auto job = merge();
    ASSERT_TRUE(job) << job.error().message();
    EXPECT_FALSE(job->share);
    EXPECT_TRUE(to_json(*job).at("attribution").is_null());
}

} // namespace
} // namespace jp::report::job
