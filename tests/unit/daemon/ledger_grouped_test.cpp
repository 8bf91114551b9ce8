// SPDX-License-Identifier: BSD-3-Clause
// jouleprofd's grouped ledger view (daemon/ledger.hpp, docs/daemon-protocol.md): per group of
// the session's CPUs (one per package, as a job's share needs them), the sum of 1 / holders;
// the same figures as the view per CPU; a size that does not grow with how finely another
// job's CPUs interleave with the session's (an attacker holding every other CPU of a large
// node made the view per CPU refused); the reply read strictly.
#include "daemon/ledger.hpp"
#include "daemon_client/ledger_reply.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace jp::daemon {
namespace {

using Sums = std::vector<std::pair<std::int64_t, std::vector<double>>>;

TEST(LedgerGrouped, EachGroupSumsOneOverItsCpusHolders) {
    Ledger l;
    l.open("a", "a", 1000, {0, 1, 2, 3}, 0);
    l.open("b", "b", 1001, {1, 2}, 10);
    l.open("c", "c", 1002, {2, 9}, 12);
    l.open("d", "d", 1003, {3}, 14); // a CPU of no group asked: no new segment
    l.close("b", 20);
    const std::vector<std::vector<int>> groups{{1, 0}, {2, 9, 2}, {}};
    const auto v = l.view("a", 0, 30, 30, 1, groups);
    ASSERT_TRUE(v);
    EXPECT_TRUE(v->grouped);
    EXPECT_TRUE(v->segments.empty());
    EXPECT_EQ(v->groups, (std::vector<std::vector<int>>{{0, 1}, {2}}))
        << "the session's own CPUs of each group, once each, ascending; a group of none of "
           "them left out";
    EXPECT_EQ(v->sums, (Sums{{0, {2, 1}}, {10, {1.5, 0.5}}, {12, {1.5, 1.0 / 3}}, {20, {2, 0.5}}}));
    EXPECT_FALSE(v->more_from_ns) << "one page";
    EXPECT_EQ(v->other_jobs, 3U);
    EXPECT_EQ(v->most_at_once, 3U);
    // The same as the view per CPU gives, summed.
    const auto per_cpu = l.view("a", 0, 30, 30, 1);
    ASSERT_TRUE(per_cpu);
    ASSERT_EQ(per_cpu->segments.size(), 5U) << "d's beginning is a segment there";
    EXPECT_EQ(per_cpu->other_jobs, v->other_jobs);
}

// An attacker's jobs, each holding every other CPU of a 256-CPU node for 5 ns of every 10:
// per CPU, each change is 256 run-length pairs and the view is refused past 200,000 of them;
// grouped, two sums a change.
TEST(LedgerGrouped, AnInterleavingAttackerLeavesTheGroupedViewAnswered) {
    Ledger l;
    std::vector<int> all(256);
    for (int c = 0; c < 256; ++c) {
        all[static_cast<std::size_t>(c)] = c;
    }
    l.open("victim", "victim", 1000, all, 0);
    constexpr int k_jobs = 2000;
    for (int k = 0; k < k_jobs; ++k) {
        std::vector<int> every_other;
        for (int c = k % 2; c < 256; c += 2) {
            every_other.push_back(c);
        }
        const auto id = "x" + std::to_string(k);
        l.open(id, id, 1001, every_other, 10 * k + 10);
        l.close(id, 10 * k + 15);
    }
    const std::int64_t end = 10 * k_jobs + 100;
    EXPECT_FALSE(l.view("victim", 0, end, end, 1)) << "per CPU: past the bound on pairs";
    const std::vector<std::vector<int>> packages{{all.begin(), all.begin() + 128},
                                                 {all.begin() + 128, all.end()}};
    const auto v = l.view("victim", 0, end, end, 1, packages);
    ASSERT_TRUE(v);
    ASSERT_EQ(v->sums.size(), 1U + 2 * k_jobs);
    for (std::size_t i = 0; i < v->sums.size(); ++i) {
        const double each = i % 2 == 1 ? 64 + 64 * 0.5 : 128; // held by two, or alone
        EXPECT_EQ(v->sums[i].second, (std::vector<double>{each, each})) << i;
    }
    EXPECT_EQ(v->other_jobs, static_cast<std::size_t>(k_jobs));
    EXPECT_EQ(v->most_at_once, 1U);
    // As the client reads it, back from JSON.
    nlohmann::json segments = nlohmann::json::array();
    for (const auto& [t, sums] : v->sums) {
        segments.push_back({t, sums});
    }
    const auto r = parse_ledger({{"groups", v->groups},
                                 {"segments", segments},
                                 {"other_jobs", v->other_jobs},
                                 {"most_at_once", v->most_at_once},
                                 {"complete_from_ns", v->complete_from_ns}},
                                0);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->grouped);
    EXPECT_EQ(r->segments.size(), v->sums.size());
}

TEST(LedgerReply, AGroupedReplyIsReadStrictly) {
    const auto good = nlohmann::json::parse(
        R"({"groups":[[0,3],[4]],"segments":[[100,[2,1]],[150,[1.5,0.5]]],"other_jobs":1,)"
        R"("most_at_once":1,"complete_from_ns":100})");
    const auto r = parse_ledger(good, 40);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->grouped);
    EXPECT_EQ(r->segments.at(1).t_ns, 110);
    EXPECT_EQ(r->segments.at(1).sums, (std::vector<double>{1.5, 0.5}));
    const auto again = parse_ledger(ledger_json(*r), 0);
    ASSERT_TRUE(again) << ledger_json(*r).dump();
    EXPECT_EQ(again->groups, r->groups);
    EXPECT_EQ(again->segments.at(1).sums, r->segments.at(1).sums) << "written as read";
    for (const char* bad : {
             // both forms at once
             R"({"cpus":[0],"groups":[[0]],"segments":[[1,[1]]],"other_jobs":0,)"
             R"("most_at_once":0,"complete_from_ns":0})",
             // a CPU in two groups
             R"({"groups":[[0],[0]],"segments":[[1,[1,1]]],"other_jobs":0,)"
             R"("most_at_once":0,"complete_from_ns":0})",
             // more than the group's CPUs
             R"({"groups":[[0]],"segments":[[1,[1.5]]],"other_jobs":1,)"
             R"("most_at_once":1,"complete_from_ns":0})",
             // less than every job at once holding each of them
             R"({"groups":[[0,1]],"segments":[[1,[0.9]]],"other_jobs":1,)"
             R"("most_at_once":1,"complete_from_ns":0})",
             // a sum short of the groups, one not a number, CPUs not ascending
             R"({"groups":[[0],[1]],"segments":[[1,[1]]],"other_jobs":0,)"
             R"("most_at_once":0,"complete_from_ns":0})",
             R"({"groups":[[0]],"segments":[[1,["1"]]],"other_jobs":0,)"
             R"("most_at_once":0,"complete_from_ns":0})",
             R"({"groups":[[1,0]],"segments":[[1,[2]]],"other_jobs":0,)"
             R"("most_at_once":0,"complete_from_ns":0})",
             R"({"groups":[[0]],"segments":[],"other_jobs":0,"most_at_once":0,)"
             R"("complete_from_ns":0})",
         }) {
        EXPECT_FALSE(parse_ledger(nlohmann::json::parse(bad), 0)) << bad;
    }
}

} // namespace
} // namespace jp::daemon
