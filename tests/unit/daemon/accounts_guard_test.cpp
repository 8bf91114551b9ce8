// SPDX-License-Identifier: BSD-3-Clause
// jouleprofd's accounts against what a local user can do: a pid that names another's
// process, a group named like Slurm's, many jobs of one user, jobs too costly to read, a
// tree whose root goes; and a node whose CPU time cannot be read.
#include "accounts_world.hpp"
#include "sys/proc.hpp"

#include <map>

namespace jp::daemon {
namespace {

namespace fs = std::filesystem;
using test::AccountsTest;
using test::Client;
using test::k_s;
using test::packages;

TEST_F(AccountsTest, AUsersJobsBeyondWhatTheyMayCostAreNotReadAndTheirUseIsOthers) {
    auto s = settings();
    s.reads_per_user = 1; // one group's file each reading
    Accounts accounts{s, packages()};
    const Client a{0};
    const Client b{1};
    step(7, a.pid, 0);
    step(8, b.pid, 0);
    const std::vector<Holder> same_user{{a.pid, 1, 1000}, {b.pid, 1, 1000}};
    const std::vector<double> idle{0, 0};
    accounts.follow(same_user, k_s);
    ASSERT_TRUE(accounts.snapshot(1, k_s));
    EXPECT_EQ(accounts.unread(), 2U); // one of the two, at its start and at the snapshot
    accounts.account(1, std::vector<std::optional<Reading>>{Reading{k_s, 0}, std::nullopt}, idle);
    step(7, a.pid, 500'000);
    step(8, b.pid, 500'000);
    stat({50, 50, 0, 0});
    accounts.follow(same_user, 2 * k_s);
    ASSERT_TRUE(accounts.snapshot(2, 2 * k_s));
    accounts.account(2, std::vector<std::optional<Reading>>{Reading{2 * k_s, 100}, std::nullopt},
                     idle);
    double jobs = 0;
    for (const auto* j : accounts.jobs()) {
        jobs += j->energy[0].total_j();
    }
    // The one read: half the use; the one not read is charged what nobody read explains on
    // its CPU (all of CPU 1's busy time), so being too costly to read escapes nothing.
    EXPECT_NEAR(jobs, 100, 1e-9);
    EXPECT_NEAR(accounts.totals()[0].other_j, 0, 1e-9);
    EXPECT_EQ(accounts.conservation_failures(), 0U);
}

TEST_F(AccountsTest, AHolderWhosePidIsAnotherUsersIsNotFollowed) {
    const Client a{0};
    step(7, a.pid, 0, 1001); // the pid names user 1001's process now
    Accounts accounts{settings(), packages()};
    accounts.follow(std::vector<Holder>{{a.pid, 1, 1000}}, k_s);
    ASSERT_TRUE(accounts.snapshot(1, k_s));
    accounts.account(1, {}, {});
    EXPECT_TRUE(accounts.jobs().empty());
    EXPECT_EQ(accounts.refused(), 1U);
}

TEST_F(AccountsTest, AGroupNamedLikeSlurmsThatRootDidNotMakeIsNoSlurmJob) {
    const Client a{0};
    step(4242, a.pid, 0);
    // A user's own delegated group, named as a Slurm step.
    ASSERT_EQ(::chown((slurm / "job_4242/step_0").c_str(), 1000, 1000), 0);
    Accounts accounts{settings(), packages()};
    accounts.follow(std::vector<Holder>{{a.pid, 1, 1000}}, k_s);
    ASSERT_TRUE(accounts.snapshot(1, k_s));
    accounts.account(1, {}, {});
    ASSERT_EQ(accounts.jobs().size(), 1U);
    const auto& j = *accounts.jobs()[0];
    EXPECT_EQ(j.slurm_job, "");
    EXPECT_NE(j.method.find("not taken as Slurm's"), std::string::npos) << j.method;
}

TEST_F(AccountsTest, ManyJobsOfOneUserOnACpuDiluteNobodyElsesShare) {
    // User 1001 holds CPU 0 from three jobs, user 1000 from one: the CPU is half each
    // user's, user 1001's half split among its three.
    const Client a{0};
    const Client b{0};
    const Client c{0};
    const Client d{0};
    step(7, a.pid, 0);
    step(8, b.pid, 0, 1001);
    step(9, c.pid, 0, 1001);
    step(10, d.pid, 0, 1001);
    Accounts accounts{settings(), packages()};
    const std::vector<Holder> all{
        {a.pid, 1, 1000}, {b.pid, 1, 1001}, {c.pid, 1, 1001}, {d.pid, 1, 1001}};
    const std::vector<double> idle{40, 0};
    accounts.follow(all, k_s);
    ASSERT_TRUE(accounts.snapshot(1, k_s));
    accounts.account(1, std::vector<std::optional<Reading>>{Reading{k_s, 0}, std::nullopt}, idle);
    accounts.follow(all, 2 * k_s);
    ASSERT_TRUE(accounts.snapshot(2, 2 * k_s));
    accounts.account(2, std::vector<std::optional<Reading>>{Reading{2 * k_s, 40}, std::nullopt},
                     idle);
    std::map<uid_t, double> idle_of;
    for (const auto* j : accounts.jobs()) {
        idle_of[j->uid] += j->energy[0].idle_j;
    }
    // CPU 0 is half of package 0: 20 J of its 40 J idle, 10 J to each user.
    EXPECT_NEAR(idle_of[1000], 10, 1e-9);
    EXPECT_NEAR(idle_of[1001], 10, 1e-9);
    EXPECT_NEAR(accounts.totals()[0].unallocated_j, 20, 1e-9);
    EXPECT_EQ(accounts.given_scaled(), 0U);
}

// A process that forks a child and waits; the child's pid comes back through a pipe.
struct Parent {
    pid_t pid = -1;
    pid_t child = -1;
    Parent() {
        int fds[2];
        EXPECT_EQ(::pipe(fds), 0);
        pid = ::fork();
        if (pid == 0) {
            const pid_t c = ::fork();
            if (c == 0) {
                ::pause();
                ::_exit(0);
            }
            (void)!::write(fds[1], &c, sizeof c);
            ::pause();
            ::_exit(0);
        }
        (void)!::read(fds[0], &child, sizeof child);
        ::close(fds[0]);
        ::close(fds[1]);
    }
    Parent(const Parent&) = delete;
    Parent& operator=(const Parent&) = delete;
    Parent(Parent&&) = delete;
    Parent& operator=(Parent&&) = delete;
    ~Parent() {
        ::kill(child, SIGKILL);
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
    }
};

TEST(Accounts, AClientUnderAnotherJoinsItsTreeUntilThatOneEnds) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "the processes' /proc must be the holders' user's (root here)";
    }
    const Parent p;
    ASSERT_GT(p.child, 0);
    AccountsSettings s; // this machine's /proc: the two are a real process tree
    Accounts accounts{s, packages()};
    const Holder parent{p.pid, sys::process_start_time(p.pid), 0};
    const Holder child{p.child, sys::process_start_time(p.child), 0};
    accounts.follow(std::vector<Holder>{parent, child}, k_s);
    ASSERT_TRUE(accounts.snapshot(1, k_s));
    accounts.account(1, {}, {});
    ASSERT_EQ(accounts.jobs().size(), 1U) << "the child's CPU time is in its parent's tree";
    EXPECT_NE(accounts.jobs()[0]->key.find(std::to_string(p.pid)), std::string::npos);
    // The parent's session ends: its tree's job ends with it (its pid may name another's
    // process next), and the child is taken up as a job of its own.
    accounts.follow(std::vector<Holder>{child}, 2 * k_s);
    accounts.follow(std::vector<Holder>{child}, 2 * k_s + k_s / 10);
    ASSERT_TRUE(accounts.snapshot(2, 3 * k_s));
    accounts.account(2, {}, {});
    const auto jobs = accounts.jobs();
    ASSERT_EQ(jobs.size(), 2U);
    EXPECT_NE(jobs[0]->ended_ns, 0);
    EXPECT_EQ(jobs[1]->ended_ns, 0);
    EXPECT_NE(jobs[1]->key.find(std::to_string(p.child)), std::string::npos);
    EXPECT_EQ(accounts.open_jobs(), 1U);
}

TEST(Accounts, WithoutTheNodesCpuTimeNothingIsSplitAndItSaysWhy) {
    AccountsSettings s;
    s.proc_root = "/nonexistent-root";
    Accounts accounts{s, packages()};
    EXPECT_NE(accounts.unavailable().find("cannot be read"), std::string::npos);
    accounts.follow({}, k_s);
    EXPECT_FALSE(accounts.snapshot(1, k_s));
}

} // namespace
} // namespace jp::daemon
