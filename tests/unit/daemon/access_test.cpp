// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/access.hpp"

#include <gtest/gtest.h>

namespace jp::daemon {
namespace {

sys::PeerCredentials who(uid_t uid, gid_t gid, std::vector<gid_t> groups = {}) {
    return {1234, uid, gid, std::move(groups)};
}

TEST(Access, RootAndListedGroupsGetFullOthersTheFloor) {
    AccessRules rules;
    rules.full_resolution_gids = {500};
    EXPECT_EQ(grant_for(rules, who(0, 0)), Grant::full);
    EXPECT_EQ(grant_for(rules, who(1000, 500)), Grant::full) << "primary group";
    EXPECT_EQ(grant_for(rules, who(1000, 1000, {20, 500})), Grant::full) << "supplementary";
    EXPECT_EQ(grant_for(rules, who(1000, 1000, {20})), Grant::floor);
    rules.others_allowed = false;
    EXPECT_EQ(grant_for(rules, who(1000, 1000)), Grant::denied);
    EXPECT_EQ(grant_for(rules, who(1000, 500)), Grant::full);
}

constexpr std::int64_t k_s = 1'000'000'000;

TEST(EdgeBudget, ABurstThenTheRate) {
    AccessRules rules;
    rules.edge_reads_burst = 3;
    rules.edge_reads_per_minute = 6; // one every 10 s
    EdgeBudget b;
    std::int64_t t = 100 * k_s;
    EXPECT_EQ(b.available(1000, t, rules), 3);
    for (int i = 0; i < 3; ++i) {
        EXPECT_TRUE(b.take(1000, Grant::floor, t, rules).allowed) << i;
    }
    auto refused = b.take(1000, Grant::floor, t, rules);
    EXPECT_FALSE(refused.allowed);
    EXPECT_EQ(refused.retry_after_ms, 10'000);
    EXPECT_TRUE(b.take(1001, Grant::floor, t, rules).allowed) << "each user has a budget";
    t += 5 * k_s;
    refused = b.take(1000, Grant::floor, t, rules);
    EXPECT_FALSE(refused.allowed);
    EXPECT_EQ(refused.retry_after_ms, 5'000);
    t += 5 * k_s;
    EXPECT_TRUE(b.take(1000, Grant::floor, t, rules).allowed) << "refilled after 10 s";
    EXPECT_FALSE(b.take(1000, Grant::floor, t, rules).allowed);
    t += 3600 * k_s;
    EXPECT_EQ(b.available(1000, t, rules), 3) << "never more than the burst";
}

TEST(EdgeBudget, FullResolutionAndNoBurstAreUnlimited) {
    AccessRules rules;
    rules.edge_reads_burst = 1;
    EdgeBudget b;
    for (int i = 0; i < 100; ++i) {
        EXPECT_TRUE(b.take(0, Grant::full, 0, rules).allowed);
    }
    rules.edge_reads_burst = 0;
    for (int i = 0; i < 100; ++i) {
        EXPECT_TRUE(b.take(1000, Grant::floor, 0, rules).allowed);
    }
}

TEST(EdgeBudget, NoRefillMeansNeverAgain) {
    AccessRules rules;
    rules.edge_reads_burst = 1;
    rules.edge_reads_per_minute = 0;
    EdgeBudget b;
    EXPECT_TRUE(b.take(1000, Grant::floor, 0, rules).allowed);
    const auto r = b.take(1000, Grant::floor, 3600 * k_s, rules);
    EXPECT_FALSE(r.allowed);
    EXPECT_EQ(r.retry_after_ms, -1);
}

} // namespace
} // namespace jp::daemon
