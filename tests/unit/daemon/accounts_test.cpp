// SPDX-License-Identifier: BSD-3-Clause
// jouleprofd's accounts on a fake node with two real processes as the clients: every
// channel split among the jobs by hand-computed figures, the parts adding up.
#include "accounts_world.hpp"

namespace jp::daemon {
namespace {

namespace fs = std::filesystem;
using test::AccountsTest;
using test::Client;
using test::k_s;
using test::packages;

TEST_F(AccountsTest, TwoStepsSplitEachPackageByWhatTheyHoldAndWhatTheyUsed) {
    const Client a{0};
    const Client b{1};
    step(7, a.pid, 0);
    step(8, b.pid, 0, 1001);
    Accounts accounts{settings(), packages()};
    ASSERT_EQ(accounts.unavailable(), "");
    const std::vector<Holder> both{{a.pid, 1, 1000}, {b.pid, 1, 1001}};
    const std::vector<double> idle{40, 40};
    accounts.follow(both, k_s);
    ASSERT_TRUE(accounts.snapshot(1, k_s));
    accounts.account(1, std::vector<std::optional<Reading>>{Reading{k_s, 0}, Reading{k_s, 0}},
                     idle);
    // A second on: step 7 used 0.6 s (on CPU 0), step 8 0.2 s (CPU 1), and something
    // outside both 0.2 s on CPU 2. Package 0 drew 100 J, package 1 50 J.
    step(7, a.pid, 600'000);
    step(8, b.pid, 200'000, 1001);
    stat({60, 20, 20, 0});
    accounts.follow(both, k_s + k_s / 2);
    EXPECT_FALSE(accounts.snapshot(2, k_s + k_s / 2)); // younger than min_period
    accounts.follow(both, 2 * k_s);
    ASSERT_TRUE(accounts.snapshot(3, 2 * k_s));
    accounts.account(
        3, std::vector<std::optional<Reading>>{Reading{2 * k_s, 100}, Reading{2 * k_s, 50}}, idle);

    ASSERT_EQ(accounts.jobs().size(), 2U);
    // Each job as of the last window published.
    const auto job = [&](const char* id) -> const AccountJob& {
        const auto jobs = accounts.jobs();
        return *(jobs[0]->slurm_job == id ? jobs[0] : jobs[1]);
    };
    EXPECT_EQ(job("7").slurm_job, "7");
    EXPECT_EQ(job("8").slurm_job, "8");
    EXPECT_EQ(job("7").cpus, std::vector<int>{0});
    EXPECT_EQ(job("7").uid, 1000U);
    // Package 0: 40 J idle, a CPU each of its two: 20 J each; 60 J dynamic by 0.6 : 0.2 of
    // the package's 0.8 s.
    EXPECT_NEAR(job("7").energy[0].idle_j, 20, 1e-9);
    EXPECT_NEAR(job("7").energy[0].dynamic_j, 45, 1e-9);
    EXPECT_NEAR(job("8").energy[0].idle_j, 20, 1e-9);
    EXPECT_NEAR(job("8").energy[0].dynamic_j, 15, 1e-9);
    // Package 1: nobody holds its CPUs (40 J unallocated); its 10 J dynamic was used by
    // something outside both jobs.
    EXPECT_NEAR(job("7").energy[1].total_j(), 0, 1e-9);
    EXPECT_NEAR(job("8").energy[1].total_j(), 0, 1e-9);
    const auto& t0 = accounts.totals()[0];
    const auto& t1 = accounts.totals()[1];
    EXPECT_NEAR(t0.unallocated_j, 0, 1e-9);
    EXPECT_NEAR(t0.other_j, 0, 1e-9);
    EXPECT_NEAR(t1.unallocated_j, 40, 1e-9);
    EXPECT_NEAR(t1.other_j, 10, 1e-9);
    EXPECT_DOUBLE_EQ(t0.energy_j, 100);
    EXPECT_EQ(accounts.splits(), 2U);
    EXPECT_EQ(accounts.conservation_failures(), 0U);
    EXPECT_EQ(accounts.open_jobs(), 2U);

    // Step 8's client goes: its last reading is taken, then it is ended, kept, and charged
    // nothing more; the idle power of CPU 1 is nobody's from then on.
    step(8, b.pid, 300'000, 1001);
    step(7, a.pid, 700'000);
    stat({70, 30, 20, 0});
    accounts.follow(std::vector<Holder>{both[0]}, 3 * k_s);
    ASSERT_TRUE(accounts.snapshot(4, 3 * k_s));
    accounts.account(
        4, std::vector<std::optional<Reading>>{Reading{3 * k_s, 180}, Reading{3 * k_s, 90}}, idle);
    EXPECT_EQ(accounts.open_jobs(), 1U);
    EXPECT_NE(job("8").ended_ns, 0);
    EXPECT_NEAR(job("8").energy[0].dynamic_j, 15 + 40 * 0.1 / 0.2, 1e-9);
    accounts.follow(std::vector<Holder>{both[0]}, 4 * k_s);
    ASSERT_TRUE(accounts.snapshot(5, 4 * k_s));
    accounts.account(
        5, std::vector<std::optional<Reading>>{Reading{4 * k_s, 280}, Reading{4 * k_s, 140}}, idle);
    EXPECT_NEAR(job("8").energy[0].total_j(), 20 + 20 + 15 + 20, 1e-9);
    EXPECT_NEAR(job("7").energy[0].idle_j, 20 + 20 + 20, 1e-9);
    // Nobody used package 0 in that last second: its 60 J above idle go by what was given,
    // like its idle power (half to step 7, half nobody's).
    EXPECT_NEAR(job("7").energy[0].dynamic_j, 45 + 20 + 30, 1e-9);
    EXPECT_NEAR(accounts.totals()[0].unallocated_j, 20 + 30, 1e-9);
    EXPECT_EQ(accounts.conservation_failures(), 0U);
}

TEST_F(AccountsTest, AJobThatBeginsOrEndsWithinAnIntervalPaysForThePartItRan) {
    const Client a{0};
    const Client b{1};
    step(7, a.pid, 0);
    Accounts accounts{settings(), packages()};
    const std::vector<Holder> one{{a.pid, 1, 1000}};
    const std::vector<Holder> both{{a.pid, 1, 1000}, {b.pid, 1, 1001}};
    const std::vector<double> idle{40, 40};
    accounts.follow(one, k_s);
    ASSERT_TRUE(accounts.snapshot(1, k_s));
    accounts.account(1, std::vector<std::optional<Reading>>{Reading{k_s, 0}, std::nullopt}, idle);
    // Step 8's client comes half a second in; its CPU time counts from then (0.1 s by the
    // snapshot), and it holds CPU 1 for half of the interval.
    step(8, b.pid, 500'000, 1001);
    accounts.follow(both, k_s + k_s / 2);
    step(8, b.pid, 600'000, 1001);
    step(7, a.pid, 300'000);
    stat({30, 10, 0, 0});
    accounts.follow(both, 2 * k_s);
    ASSERT_TRUE(accounts.snapshot(2, 2 * k_s));
    accounts.account(2, std::vector<std::optional<Reading>>{Reading{2 * k_s, 80}, std::nullopt},
                     idle);
    const auto find = [&](const char* job) {
        for (const auto* j : accounts.jobs()) {
            if (j->slurm_job == job) {
                return j;
            }
        }
        return static_cast<const AccountJob*>(nullptr);
    };
    const auto* j8 = find("8");
    const auto* j7 = find("7");
    ASSERT_TRUE(j8 != nullptr && j7 != nullptr);
    EXPECT_NEAR(j7->energy[0].idle_j, 20, 1e-9);    // CPU 0 of 2, all of the second
    EXPECT_NEAR(j8->energy[0].idle_j, 10, 1e-9);    // CPU 1, half of it
    EXPECT_NEAR(j7->energy[0].dynamic_j, 30, 1e-9); // 0.3 s of 0.4 s, of 40 J
    EXPECT_NEAR(j8->energy[0].dynamic_j, 10, 1e-9); // 0.1 s
    EXPECT_NEAR(accounts.totals()[0].unallocated_j, 10, 1e-9);
    // It goes a quarter of a second into the next one, having used 0.1 s more.
    step(8, b.pid, 700'000, 1001);
    step(7, a.pid, 400'000);
    stat({40, 20, 0, 0});
    accounts.follow(one, 2 * k_s + k_s / 4);
    step(8, b.pid, 900'000, 1001); // after it ended: not its own
    accounts.follow(one, 3 * k_s);
    ASSERT_TRUE(accounts.snapshot(3, 3 * k_s));
    accounts.account(3, std::vector<std::optional<Reading>>{Reading{3 * k_s, 160}, std::nullopt},
                     idle);
    j8 = find("8"); // as of this window
    ASSERT_TRUE(j8 != nullptr);
    EXPECT_NEAR(j8->energy[0].idle_j, 10 + 5, 1e-9);
    EXPECT_NEAR(j8->energy[0].dynamic_j, 10 + 20, 1e-9); // 0.1 s of 0.2 s, of 40 J
    EXPECT_NEAR(accounts.totals()[0].unallocated_j, 10 + 15, 1e-9);
    EXPECT_EQ(accounts.conservation_failures(), 0U);
}

TEST_F(AccountsTest, AWindowWithoutCpuTimeIsSplitWithTheNext) {
    const Client a{0};
    step(7, a.pid, 0);
    Accounts accounts{settings(), packages()};
    const std::vector<Holder> one{{a.pid, 1, 1000}};
    const std::vector<double> idle{0, 0};
    accounts.follow(one, k_s);
    ASSERT_TRUE(accounts.snapshot(1, k_s));
    accounts.account(1, std::vector<std::optional<Reading>>{Reading{k_s, 10}, std::nullopt}, idle);
    accounts.account(2, std::vector<std::optional<Reading>>{Reading{2 * k_s, 30}, std::nullopt},
                     idle); // never snapshotted: left for the next
    step(7, a.pid, 1'000'000);
    stat({100, 0, 0, 0});
    accounts.follow(one, 3 * k_s);
    ASSERT_TRUE(accounts.snapshot(3, 3 * k_s));
    accounts.account(3, std::vector<std::optional<Reading>>{Reading{3 * k_s, 70}, std::nullopt},
                     idle);
    const auto jobs = accounts.jobs();
    ASSERT_EQ(jobs.size(), 1U);
    EXPECT_NEAR(jobs[0]->energy[0].dynamic_j, 60, 1e-9); // all of it, from 10 J to 70 J
    EXPECT_DOUBLE_EQ(accounts.totals()[0].energy_j, 60);
    EXPECT_EQ(accounts.splits(), 1U);
}

TEST_F(AccountsTest, EndedJobsAreForgottenAfterKeepOrBeyondTheMost) {
    auto s = settings();
    s.max_jobs = 1;
    s.keep = Nanos{10 * k_s};
    Accounts accounts{s, packages()};
    const Client a{0};
    const Client b{1};
    step(7, a.pid, 0, 1);
    step(8, b.pid, 0, 2);
    accounts.follow(std::vector<Holder>{{a.pid, 1, 1}, {b.pid, 1, 2}}, k_s);
    ASSERT_TRUE(accounts.snapshot(1, k_s));
    accounts.account(1, {}, {});
    EXPECT_EQ(accounts.jobs().size(), 2U); // open jobs are never forgotten
    accounts.follow(std::vector<Holder>{{a.pid, 1, 1}}, 2 * k_s);
    ASSERT_TRUE(accounts.snapshot(2, 2 * k_s));
    accounts.account(2, {}, {});
    EXPECT_EQ(accounts.jobs().size(), 1U); // the ended one is beyond the most kept
    EXPECT_EQ(accounts.jobs()[0]->slurm_job, "7");
    accounts.follow(std::vector<Holder>{}, 3 * k_s);
    ASSERT_TRUE(accounts.snapshot(3, 3 * k_s));
    accounts.account(3, {}, {});
    ASSERT_EQ(accounts.jobs().size(), 1U); // ended now, and kept
    EXPECT_NE(accounts.jobs()[0]->ended_ns, 0);
    accounts.follow(std::vector<Holder>{}, 14 * k_s);
    ASSERT_TRUE(accounts.snapshot(4, 14 * k_s));
    accounts.account(4, {}, {});
    EXPECT_TRUE(accounts.jobs().empty());
}

} // namespace
} // namespace jp::daemon
