// SPDX-License-Identifier: BSD-3-Clause
// Every job on a node at once: the same rule as one job's split, the parts held to what
// there is, and the jobs, unallocated and other processes always add up to the energy.
#include "attrib/node_split.hpp"

#include <array>
#include <cmath>
#include <gtest/gtest.h>
#include <random>

namespace jp::attrib {
namespace {

TEST(NodeSplit, TwoJobsIdleByWhatTheyHoldDynamicByWhatTheyUsed) {
    // 100 J over 1 s at 40 W idle: 40 J idle, 60 J dynamic. Job A holds a quarter of the
    // package and used half of its busy time, B a half and a quarter.
    const std::array<JobClaim, 2> claims{{{0.25, 0.5}, {0.5, 0.25}}};
    const auto s = split_node({100, 1, 40, true}, claims);
    ASSERT_EQ(s.jobs.size(), 2U);
    EXPECT_DOUBLE_EQ(s.jobs[0].idle_j, 10);
    EXPECT_DOUBLE_EQ(s.jobs[0].dynamic_j, 30);
    EXPECT_DOUBLE_EQ(s.jobs[1].idle_j, 20);
    EXPECT_DOUBLE_EQ(s.jobs[1].dynamic_j, 15);
    EXPECT_DOUBLE_EQ(s.unallocated_j, 10); // the quarter nobody holds
    EXPECT_DOUBLE_EQ(s.other_j, 15);       // the quarter of the use outside both
    EXPECT_FALSE(s.given_scaled);
    EXPECT_FALSE(s.use_scaled);
    EXPECT_DOUBLE_EQ(s.residual_j(100), 0);
}

TEST(NodeSplit, NobodysUseGoesByWhatWasGivenAndTheRestIsUnallocated) {
    const std::array<JobClaim, 1> claims{{{0.5, 0}}};
    const auto s = split_node({50, 1, 40, false}, claims);
    EXPECT_DOUBLE_EQ(s.jobs[0].total_j(), 25);
    EXPECT_DOUBLE_EQ(s.unallocated_j, 25);
    EXPECT_DOUBLE_EQ(s.other_j, 0);
}

TEST(NodeSplit, NoJobAtAllIsUnallocatedIdleAndOthersUse) {
    const auto s = split_node({100, 1, 40, true}, {});
    EXPECT_TRUE(s.jobs.empty());
    EXPECT_DOUBLE_EQ(s.unallocated_j, 40);
    EXPECT_DOUBLE_EQ(s.other_j, 60);
}

TEST(NodeSplit, SharesAddingUpToMoreThanTheWholeAreScaledToIt) {
    // Two jobs both claim all of it (overlapping groups, a clock's rounding): each gets half,
    // and the result says the shares were scaled.
    const std::array<JobClaim, 2> claims{{{1, 0.8}, {1, 0.4}}};
    const auto s = split_node({100, 1, 40, true}, claims);
    EXPECT_TRUE(s.given_scaled);
    EXPECT_TRUE(s.use_scaled);
    EXPECT_DOUBLE_EQ(s.jobs[0].idle_j, 20);
    EXPECT_DOUBLE_EQ(s.jobs[1].idle_j, 20);
    EXPECT_NEAR(s.jobs[0].dynamic_j, 40, 1e-9);
    EXPECT_NEAR(s.jobs[1].dynamic_j, 20, 1e-9);
    EXPECT_NEAR(s.unallocated_j, 0, 1e-9);
    EXPECT_NEAR(s.other_j, 0, 1e-9);
}

TEST(NodeSplit, AnIdlePowerAboveTheMeasuredOneAndBadNumbersGiveNoNegativePart) {
    const std::array<JobClaim, 3> claims{{{0.5, 1}, {NAN, INFINITY}, {-1, -2}}};
    const auto s = split_node({30, 1, 40, true}, claims);
    EXPECT_DOUBLE_EQ(s.jobs[0].idle_j, 15);
    EXPECT_DOUBLE_EQ(s.jobs[0].dynamic_j, 0);
    EXPECT_DOUBLE_EQ(s.jobs[1].total_j(), 0);
    EXPECT_DOUBLE_EQ(s.jobs[2].total_j(), 0);
    EXPECT_DOUBLE_EQ(s.unallocated_j, 15);
    const auto nan = split_node({NAN, 1, 40, true}, claims);
    EXPECT_DOUBLE_EQ(nan.residual_j(0), 0);
}

TEST(NodeSplit, ThePartsAlwaysAddUpToTheEnergy) {
    std::mt19937_64 random{20261128};
    std::uniform_real_distribution<double> unit{0, 1};
    for (int n = 0; n < 20000; ++n) {
        std::vector<JobClaim> claims(random() % 8);
        for (auto& c : claims) {
            c = {unit(random) * 1.5 - 0.2, unit(random) * 1.5 - 0.2};
        }
        const NodeInterval in{unit(random) * 1000, unit(random) * 2, unit(random) * 400,
                              random() % 2 == 0};
        const auto s = split_node(in, claims);
        ASSERT_NEAR(s.residual_j(in.energy_j), 0, 1e-9 * (1 + in.energy_j)) << n;
        ASSERT_GE(s.unallocated_j, 0) << n;
        ASSERT_GE(s.other_j, 0) << n;
        for (const auto& j : s.jobs) {
            ASSERT_GE(j.idle_j, 0) << n;
            ASSERT_GE(j.dynamic_j, 0) << n;
        }
    }
}

} // namespace
} // namespace jp::attrib
