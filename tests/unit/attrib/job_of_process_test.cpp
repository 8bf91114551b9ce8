// SPDX-License-Identifier: BSD-3-Clause
// The job of a process that runs already (`jouleprof record --job PID`, the Slurm
// plugin's slurmstepd): its Slurm step's group in the layouts of Slurm's cgroup/v1 and
// cgroup/v2 plugins, read through fake trees, else its process tree; nothing moved.
#include "attrib/cgroup.hpp"
#include "attrib/job_cpu.hpp"
#include "files.hpp"

#include <chrono>
#include <filesystem>
#include <gtest/gtest.h>
#include <unistd.h>

namespace jp::attrib {
namespace {

namespace fs = std::filesystem;

using test::put;

TEST(SlurmStepGroup, TheStepAboveSlurmstepdsOrATasksGroup) {
    // cgroup/v2: slurmstepd in step_N/slurm, the tasks in step_N/user/task_M.
    EXPECT_EQ(slurm_step_group("/system.slice/slurmstepd.scope/job_7/step_0/slurm"),
              "/system.slice/slurmstepd.scope/job_7/step_0");
    EXPECT_EQ(slurm_step_group("/system.slice/slurmstepd.scope/job_7/step_batch/user/task_0"),
              "/system.slice/slurmstepd.scope/job_7/step_batch");
    // cgroup/v1: slurm/uid_U/job_J/step_S under each controller.
    EXPECT_EQ(slurm_step_group("/slurm/uid_1000/job_42/step_0"), "/slurm/uid_1000/job_42/step_0");
    EXPECT_EQ(slurm_step_group("/slurm/uid_1000/job_42/step_extern/task_0"),
              "/slurm/uid_1000/job_42/step_extern");
    // The job's group where no step follows it.
    EXPECT_EQ(slurm_step_group("/slurm/uid_1000/job_42"), "/slurm/uid_1000/job_42");
    EXPECT_EQ(slurm_step_group("/slurm/uid_1000/job_42/other/step_1"), "/slurm/uid_1000/job_42");
    // Not a Slurm job.
    EXPECT_EQ(slurm_step_group("/user.slice/user-1000.slice/session-3.scope"), "");
    EXPECT_EQ(slurm_step_group("/step_0/job_x"), "");
    EXPECT_EQ(slurm_step_group("/"), "");
}

struct OfProcess : ::testing::Test {
    fs::path root = fs::temp_directory_path() / ("jp-ofp-" + std::to_string(::getpid()));
    void SetUp() override { fs::remove_all(root); }
    void TearDown() override { fs::remove_all(root); }
};

TEST_F(OfProcess, SlurmstepdsGroupUnderTheV2PluginGivesItsWholeStep) {
    put(root / "sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
    const auto step = root / "sys/fs/cgroup/system.slice/slurmstepd.scope/job_7/step_0";
    put(step / "cpu.stat", "usage_usec 5000000\nuser_usec 4000000\nsystem_usec 1000000\n");
    put(step / "slurm/cpu.stat", "usage_usec 10000\n");
    put(root / "proc/500/cgroup", "0::/system.slice/slurmstepd.scope/job_7/step_0/slurm\n");
    put(root / "proc/501/cgroup", "0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_0\n");
    put(root / "proc/502/cgroup", "0::/system.slice/slurmstepd.scope/job_8/step_0/user/task_0\n");
    auto j = JobCpu::of_process(root, 500);
    EXPECT_EQ(j.group(), step);
    EXPECT_EQ(j.slurm_job(), "7");
    EXPECT_NE(j.method().find("Slurm job 7's cgroup"), std::string::npos) << j.method();
    auto r = j.read();
    ASSERT_TRUE(r);
    EXPECT_NEAR(r->total_s, 0.0, 1e-9); // what the step used before is not counted
    put(step / "cpu.stat", "usage_usec 7500000\n");
    r = j.read();
    ASSERT_TRUE(r);
    EXPECT_NEAR(r->total_s, 2.5, 1e-9);
    EXPECT_EQ(j.contains(500), true);
    EXPECT_EQ(j.contains(501), true);  // a task of the step
    EXPECT_EQ(j.contains(502), false); // another job's
    EXPECT_EQ(j.contains(503), std::nullopt);
    // Nothing was made or moved: the step's group is Slurm's.
    (void)j.finish();
    EXPECT_TRUE(fs::exists(step / "slurm"));
    EXPECT_FALSE(fs::exists(step / "jouleprof-500"));
}

TEST_F(OfProcess, TheV1PluginsStepCountsPerCpu) {
    put(root / "sys/fs/cgroup/cpuacct/cpuacct.usage", "1\n");
    const auto step = root / "sys/fs/cgroup/cpuacct/slurm/uid_1000/job_42/step_0";
    put(step / "cpuacct.usage_percpu", "1000000000 2000000000 \n");
    put(root / "proc/600/cgroup", "2:cpu,cpuacct:/slurm/uid_1000/job_42/step_0\n0::/\n");
    auto j = JobCpu::of_process(root, 600);
    EXPECT_EQ(j.group(), step);
    put(step / "cpuacct.usage_percpu", "1500000000 4000000000 \n");
    const auto r = j.read();
    ASSERT_TRUE(r);
    ASSERT_EQ(r->per_cpu_s.size(), 2U);
    EXPECT_NEAR(r->per_cpu_s[0], 0.5, 1e-9);
    EXPECT_NEAR(r->per_cpu_s[1], 2.0, 1e-9);
    EXPECT_NEAR(r->total_s, 2.5, 1e-9);
}

// What Slurm 22.05's cgroup/v1 plugins really do (tests/slurm/slurm_cgroup_test.sh, with
// proctrack/cgroup, task/cgroup and jobacct_gather/cgroup): slurmstepd stays in cpuacct's
// root and the job's freezer group; only its cpuset group names the step; the tasks are in
// cpuacct's step_N/task_M. The step's cpuacct group, which counts its tasks, is the job.
TEST_F(OfProcess, TheV1PluginsSlurmstepdOutsideCpuacctStillFindsItsStep) {
    put(root / "sys/fs/cgroup/cpuacct/cpuacct.usage", "1\n");
    put(root / "sys/fs/cgroup/cpuset/cpuset.cpus", "0-1\n");
    put(root / "sys/fs/cgroup/freezer/freezer.state", "THAWED\n");
    const auto job = root / "sys/fs/cgroup/cpuacct/slurm_n1/uid_1001/job_1";
    put(job / "cpuacct.usage_percpu", "9000000000 9000000000 \n"); // other steps too
    put(job / "step_0/cpuacct.usage_percpu", "1000000000 0 \n");
    put(job / "step_0/task_0/cpuacct.usage_percpu", "1000000000 0 \n");
    put(root / "proc/700/cgroup", "9:name=systemd:/\n6:freezer:/slurm_n1/uid_1001/job_1\n"
                                  "4:memory:/process_api/17dbfbbd\n"
                                  "3:cpuset:/slurm_n1/uid_1001/job_1/step_0\n2:cpuacct:/\n"
                                  "1:cpu:/\n0::/\n");
    auto j = JobCpu::of_process(root, 700);
    EXPECT_EQ(j.group(), job / "step_0");
    EXPECT_EQ(j.slurm_job(), "1");
    put(job / "step_0/cpuacct.usage_percpu", "1500000000 250000000 \n");
    const auto r = j.read();
    ASSERT_TRUE(r);
    EXPECT_NEAR(r->total_s, 0.75, 1e-9);
    EXPECT_FALSE(j.awaits_group());
}

// The plugin starts `jouleprof record` before the step's tasks, and jobacct_gather/cgroup
// makes the step's cpuacct group only for them: slurmstepd's process tree until it is
// there, then the group, all of whose count is the job's. Without jobacct_gather/cgroup it
// never comes: the process tree throughout.
TEST_F(OfProcess, TheV1StepGroupMadeAfterTheMonitorBeganIsTakenWhenItComes) {
    put(root / "sys/fs/cgroup/cpuacct/cpuacct.usage", "1\n");
    put(root / "sys/fs/cgroup/cpuset/cpuset.cpus", "0-1\n");
    put(root / "proc/800/cgroup", "6:freezer:/slurm_n1/uid_1001/job_3\n"
                                  "3:cpuset:/slurm_n1/uid_1001/job_3/step_0\n2:cpuacct:/\n0::/\n");
    put(root / "proc/800/stat", "800 (slurmstepd) S 1 800 800 0 -1 0 0 0 0 0 5 5 0 0 20 0 1 0\n");
    put(root / "proc/800/task/800/children", "");
    auto j = JobCpu::of_process(root, 800);
    EXPECT_TRUE(j.awaits_group());
    EXPECT_NE(j.method().find("process tree of pid 800"), std::string::npos) << j.method();
    EXPECT_TRUE(j.slurm_job().empty());
    ASSERT_TRUE(j.read());
    const auto step = root / "sys/fs/cgroup/cpuacct/slurm_n1/uid_1001/job_3/step_0";
    put(step / "cpuacct.usage_percpu", "250000000 500000000 \n");
    const auto r = j.read();
    ASSERT_TRUE(r);
    EXPECT_FALSE(j.awaits_group());
    EXPECT_EQ(j.group(), step);
    EXPECT_EQ(j.slurm_job(), "3");
    EXPECT_NE(j.method().find("Slurm job 3's cgroup"), std::string::npos) << j.method();
    ASSERT_EQ(r->per_cpu_s.size(), 2U);
    EXPECT_NEAR(r->total_s, 0.75, 1e-9); // all of it: the group is younger than the monitor
    ASSERT_EQ(j.notes().size(), 1U);
    EXPECT_NE(j.notes().front().find("until Slurm made the step's group"), std::string::npos);
}

// A review: the job's freezer group (where proctrack/cgroup keeps slurmstepd) names no
// step, and taking its job's cpuacct group would charge the step every step of the job;
// groups that name different jobs or steps are trusted for none.
TEST_F(OfProcess, AJobGroupOrGroupsThatDisagreeAreNotTakenAsTheStep) {
    put(root / "sys/fs/cgroup/cpuacct/cpuacct.usage", "1\n");
    put(root / "sys/fs/cgroup/cpuset/cpuset.cpus", "0-1\n");
    put(root / "sys/fs/cgroup/cpuacct/slurm_n1/uid_1001/job_5/cpuacct.usage_percpu", "1 1 \n");
    put(root / "sys/fs/cgroup/cpuacct/slurm_n1/uid_1001/job_3/step_0/cpuacct.usage_percpu",
        "1 1 \n");
    const auto tree = [&](const std::string& groups) {
        put(root / "proc/900/cgroup", groups);
        put(root / "proc/900/stat", "900 (slurmstepd) S 1 900 900 0 -1 0 0 0 0 0 5 5 0 0 20 0\n");
        put(root / "proc/900/task/900/children", "");
        auto j = JobCpu::of_process(root, 900);
        EXPECT_TRUE(j.group().empty()) << groups << ": " << j.method();
        EXPECT_FALSE(j.awaits_group()) << groups;
        EXPECT_NE(j.method().find("process tree of pid 900"), std::string::npos) << j.method();
        return j.notes();
    };
    EXPECT_TRUE(tree("6:freezer:/slurm_n1/uid_1001/job_5\n3:cpuset:/\n2:cpu,cpuacct:/\n").empty());
    const auto jobs = tree("6:freezer:/slurm_n1/uid_1001/job_4\n"
                           "3:cpuset:/slurm_n1/uid_1001/job_3/step_0\n2:cpu,cpuacct:/\n");
    ASSERT_EQ(jobs.size(), 1U);
    EXPECT_EQ(jobs.front(), "pid 900's cgroups name different Slurm jobs or steps (3, 4): none "
                            "of them is taken as the job's");
    const auto steps = tree("4:memory:/slurm_n1/uid_1001/job_3/step_1\n"
                            "3:cpuset:/slurm_n1/uid_1001/job_3/step_0\n2:cpu,cpuacct:/\n");
    ASSERT_EQ(steps.size(), 1U);
    EXPECT_NE(steps.front().find("(/slurm_n1/uid_1001/job_3/step_0, /slurm_n1/uid_1001/job_3/"
                                 "step_1)"),
              std::string::npos)
        << steps.front();
}

// A review: a folder on the way the job's user may not search aborted the monitor; now the
// process tree, said in a note. (Root searches anything: run as another user.)
TEST_F(OfProcess, AGroupTheMonitorMayNotLookForIsSaidAndTheTreeFollowed) {
    if (::geteuid() == 0) {
        GTEST_SKIP() << "root may search any folder (run as another user)";
    }
    put(root / "sys/fs/cgroup/cpuacct/cpuacct.usage", "1\n");
    put(root / "sys/fs/cgroup/cpuset/cpuset.cpus", "0-1\n");
    fs::create_directories(root / "sys/fs/cgroup/cpuacct/slurm_n1/uid_1001");
    fs::permissions(root / "sys/fs/cgroup/cpuacct/slurm_n1/uid_1001", fs::perms::none);
    put(root / "proc/901/cgroup", "3:cpuset:/slurm_n1/uid_1001/job_3/step_0\n2:cpuacct:/\n");
    put(root / "proc/901/stat", "901 (slurmstepd) S 1 901 901 0 -1 0 0 0 0 0 5 5 0 0 20 0\n");
    put(root / "proc/901/task/901/children", "");
    auto j = JobCpu::of_process(root, 901);
    fs::permissions(root / "sys/fs/cgroup/cpuacct/slurm_n1/uid_1001", fs::perms::owner_all);
    EXPECT_FALSE(j.awaits_group());
    EXPECT_NE(j.method().find("process tree of pid 901"), std::string::npos) << j.method();
    ASSERT_EQ(j.notes().size(), 1U);
    EXPECT_TRUE(j.notes().front().starts_with("cannot look for Slurm's group "))
        << j.notes().front();
}

TEST_F(OfProcess, AStepGroupThatCountsNothingFallsBackToTheProcessTreeWithANote) {
    put(root / "sys/fs/cgroup/cgroup.controllers", "memory\n");
    fs::create_directories(root / "sys/fs/cgroup/system.slice/slurmstepd.scope/job_7/step_0");
    put(root / "proc/500/cgroup", "0::/system.slice/slurmstepd.scope/job_7/step_0/slurm\n");
    auto j = JobCpu::of_process(root, 500);
    EXPECT_TRUE(j.group().empty());
    EXPECT_TRUE(j.slurm_job().empty());
    EXPECT_NE(j.method().find("process tree of pid 500"), std::string::npos) << j.method();
    ASSERT_EQ(j.notes().size(), 1U);
    EXPECT_NE(j.notes().front().find("counts no CPU time here"), std::string::npos);
}

TEST(OfProcessTree, OutsideSlurmTheProcessTreeIsFollowed) {
    // This test's own process, on the real /proc: its CPU time from here on.
    auto j = JobCpu::of_process("/", ::getpid());
    if (!j.slurm_job().empty()) {
        GTEST_SKIP() << "runs inside a Slurm job: " << j.method();
    }
    EXPECT_NE(j.method().find("process tree"), std::string::npos) << j.method();
    const auto before = j.read();
    ASSERT_TRUE(before);
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds{300};
    volatile unsigned spin = 0;
    while (std::chrono::steady_clock::now() < until) {
        spin = spin + 1;
    }
    const auto after = j.read();
    ASSERT_TRUE(after);
    EXPECT_GT(after->total_s - before->total_s, 0.1); // /proc's 10 ms ticks
    EXPECT_EQ(j.contains(::getpid()), true);
}

} // namespace
} // namespace jp::attrib
