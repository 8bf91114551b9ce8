// SPDX-License-Identifier: BSD-3-Clause
// jouleprofd's accounts on a fake node (its /proc/stat, its CPU topology, two Slurm steps'
// cgroup v2 groups) with two real processes as the clients, each bound to its own CPU:
// every channel split among the jobs by hand-computed figures, the parts adding up.
#include "../attrib/files.hpp"
#include "daemon/accounts.hpp"
#include "sys/proc.hpp"

#include <csignal>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <map>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

namespace jp::daemon {
namespace {

namespace fs = std::filesystem;
using attrib::test::put;

constexpr std::int64_t k_s = 1'000'000'000;

// A child that waits to be killed, bound to one CPU.
struct Client {
    pid_t pid = -1;
    explicit Client(int cpu) {
        pid = ::fork();
        if (pid == 0) {
            ::pause();
            ::_exit(0);
        }
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(static_cast<std::size_t>(cpu), &set);
        ::sched_setaffinity(pid, sizeof set, &set);
    }
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;
    Client(Client&&) = delete;
    Client& operator=(Client&&) = delete;
    ~Client() {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
    }
};

struct AccountsTest : ::testing::Test {
    fs::path root = fs::temp_directory_path() / ("jp-accounts-" + std::to_string(::getpid()));
    fs::path slurm = root / "sys/fs/cgroup/system.slice/slurmstepd.scope";

    void SetUp() override {
        if (::sysconf(_SC_NPROCESSORS_ONLN) < 2) {
            GTEST_SKIP() << "two CPUs needed to bind the clients apart";
        }
        fs::remove_all(root);
        put(root / "sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
        // Four CPUs in two packages.
        for (int cpu = 0; cpu < 4; ++cpu) {
            put(root /
                    fmt::format("sys/devices/system/cpu/cpu{}/topology/physical_package_id", cpu),
                cpu < 2 ? "0\n" : "1\n");
        }
        stat({0, 0, 0, 0});
    }
    void TearDown() override { fs::remove_all(root); }

    // /proc/stat with each CPU's busy time (user ticks, 10 ms).
    void stat(const std::array<int, 4>& ticks) const {
        std::string text = "cpu  0 0 0 0 0 0 0 0 0 0\n";
        for (int cpu = 0; cpu < 4; ++cpu) {
            text += fmt::format("cpu{} {} 0 0 100000 0 0 0 0 0 0\n", cpu,
                                ticks[static_cast<std::size_t>(cpu)]);
        }
        put(root / "proc/stat", text);
    }
    // Slurm job `job`'s step 0, holding process pid of user uid, having used usec.
    void step(int job, pid_t pid, long usec, uid_t uid = 1000) const {
        const auto dir = slurm / fmt::format("job_{}/step_0", job);
        put(dir / "cpu.stat", fmt::format("usage_usec {}\n", usec));
        put(root / fmt::format("proc/{}/cgroup", pid),
            fmt::format("0::/system.slice/slurmstepd.scope/job_{}/step_0/slurm\n", job));
        // /proc/PID is its user's, as the kernel shows it.
        EXPECT_EQ(::chown(fs::path(root / fmt::format("proc/{}", pid)).c_str(), uid, 0), 0);
    }
    [[nodiscard]] AccountsSettings settings() const {
        AccountsSettings s;
        s.proc_root = root;
        s.sysfs_root = root;
        s.min_period = Nanos{k_s};
        return s;
    }
};

std::vector<Channel> packages() {
    Channel a;
    a.name = "cpu0.package";
    a.domain = Domain::cpu_package;
    a.quantity = Quantity::energy;
    Channel b = a;
    b.name = "cpu1.package";
    return {a, b};
}

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
