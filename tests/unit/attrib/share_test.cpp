// SPDX-License-Identifier: BSD-3-Clause
// The split of one interval's energy: idle power by what the job was given,
// dynamic power by what it used, and the four shares always add up.
#include "attrib/share.hpp"

#include <gtest/gtest.h>
#include <random>

namespace jp::attrib {
namespace {

TEST(Share, IdleByAllocationDynamicByUse) {
    // 100 J over 1 s at 40 W idle: 40 J idle, 60 J dynamic. The job holds a quarter
    // of the cores and used three quarters of the CPU time.
    const auto s = split({100, 1, 40, 0.25, 0.75, true});
    EXPECT_DOUBLE_EQ(s.job_idle_j, 10);
    EXPECT_DOUBLE_EQ(s.unallocated_j, 30);
    EXPECT_DOUBLE_EQ(s.job_dynamic_j, 45);
    EXPECT_DOUBLE_EQ(s.other_j, 15);
    EXPECT_DOUBLE_EQ(s.job_j(), 55);
    EXPECT_DOUBLE_EQ(s.node_j(), 100);
}

TEST(Share, ASleepingJobPaysOnlyTheIdlePowerOfWhatItHolds) {
    const auto s = split({100, 1, 40, 0.5, 0.0, true}); // a neighbour did all the work
    EXPECT_DOUBLE_EQ(s.job_j(), 20);
    EXPECT_DOUBLE_EQ(s.other_j, 60);
}

TEST(Share, NobodysUseGoesByAllocation) {
    const auto s = split({50, 1, 40, 0.5, 0.0, false});
    EXPECT_DOUBLE_EQ(s.job_j(), 25);
    EXPECT_DOUBLE_EQ(s.unallocated_j, 25);
    EXPECT_DOUBLE_EQ(s.other_j, 0);
}

TEST(Share, AnIdlePowerAboveTheMeasuredOneIsNotNegativeDynamicEnergy) {
    const auto s = split({30, 1, 40, 1.0, 1.0, true});
    EXPECT_DOUBLE_EQ(s.job_idle_j, 30);
    EXPECT_DOUBLE_EQ(s.job_dynamic_j, 0);
}

TEST(Share, UnknownIdlePowerLeavesEverythingToUse) {
    const auto s = split({80, 2, 0, 1.0, 0.25, true});
    EXPECT_DOUBLE_EQ(s.job_idle_j, 0);
    EXPECT_DOUBLE_EQ(s.job_dynamic_j, 20);
    EXPECT_DOUBLE_EQ(s.other_j, 60);
}

TEST(Share, TheSharesAlwaysAddUpToTheEnergy) {
    std::mt19937_64 rng{7};
    std::uniform_real_distribution<double> u(-0.2, 1.2);
    for (int i = 0; i < 20000; ++i) {
        const Interval in{u(rng) * 500, u(rng) * 10, u(rng) * 200, u(rng), u(rng), i % 3 != 0};
        const auto s = split(in);
        ASSERT_NEAR(s.node_j(), in.energy_j, 1e-9 * (1 + std::abs(in.energy_j))) << i;
        if (in.energy_j >= 0) {
            ASSERT_GE(s.job_idle_j, 0);
            ASSERT_GE(s.unallocated_j, -1e-12);
            ASSERT_GE(s.job_dynamic_j, -1e-12);
            ASSERT_GE(s.other_j, -1e-12);
        }
    }
}

} // namespace
} // namespace jp::attrib
