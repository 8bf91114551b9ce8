// SPDX-License-Identifier: BSD-3-Clause
// A process's cgroups in the layouts the kernel, systemd and Slurm make, read
// through fake trees with the real files' formats (docs/attribution.md).
#include "attrib/cgroup.hpp"
#include "attrib/proc_tree.hpp"
#include "files.hpp"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace jp::attrib {
namespace {

namespace fs = std::filesystem;

using test::put;

struct TempRoot : ::testing::Test {
    fs::path root = fs::temp_directory_path() / ("jp-cg-" + std::to_string(::getpid()));
    void SetUp() override { fs::remove_all(root); }
    void TearDown() override { fs::remove_all(root); }
};

TEST(Cgroup, HybridLayoutOfTheseMachines) {
    // /proc/self/cgroup on the development VM (cgroups-here.md), a Slurm v1 step inside.
    const auto g = parse_proc_cgroup("9:name=systemd:/\n4:memory:/slurm/uid_1000/job_42/step_0\n"
                                     "3:cpuset:/slurm/uid_1000/job_42/step_0\n"
                                     "2:cpu,cpuacct:/slurm/uid_1000/job_42/step_0\n0::/\n");
    EXPECT_EQ(g.v2, "/");
    EXPECT_EQ(g.cpuacct, "/slurm/uid_1000/job_42/step_0");
    EXPECT_EQ(g.cpuset, "/slurm/uid_1000/job_42/step_0");
    EXPECT_EQ(g.memory, "/slurm/uid_1000/job_42/step_0");
    EXPECT_EQ(slurm_job_of(*g.cpuacct), "42");
}

TEST(Cgroup, UnifiedLayoutOfSlurmsV2Plugin) {
    const auto g =
        parse_proc_cgroup("0::/system.slice/slurmstepd.scope/job_7/step_batch/user/task_0\n");
    EXPECT_EQ(g.v2, "/system.slice/slurmstepd.scope/job_7/step_batch/user/task_0");
    EXPECT_FALSE(g.cpuacct);
    EXPECT_EQ(slurm_job_of(*g.v2), "7");
    EXPECT_EQ(slurm_job_of("/user.slice/user-1000.slice/session-3.scope"), "");
    EXPECT_EQ(slurm_job_of("/job_/x"), "");
    EXPECT_EQ(slurm_job_of("/job_12a/x"), "");
}

TEST(Cgroup, APathThatLeavesItsHierarchyIsIgnored) {
    const auto g = parse_proc_cgroup("0::/../../etc\n2:cpuacct:relative\n4:memory:/a/./b\n");
    EXPECT_FALSE(g.v2);
    EXPECT_FALSE(g.cpuacct);
    EXPECT_FALSE(g.memory);
    EXPECT_FALSE(group_dir(fs::path{"/sys/fs/cgroup"}, std::string{"/a/../.."}));
    EXPECT_EQ(group_dir(fs::path{"/m"}, std::string{"/"}), fs::path{"/m"});
    EXPECT_EQ(group_dir(fs::path{"/m"}, std::string{"/a/b"}), fs::path{"/m/a/b"});
}

TEST_F(TempRoot, MountsAreFoundInBothLayouts) {
    put(root / "sys/fs/cgroup/unified/cgroup.controllers", "hugetlb\n");
    put(root / "sys/fs/cgroup/cpuacct/cpuacct.usage", "1\n");
    put(root / "sys/fs/cgroup/memory/memory.limit_in_bytes", "1\n");
    auto m = find_mounts(root);
    EXPECT_EQ(m.v2, root / "sys/fs/cgroup/unified");
    EXPECT_EQ(m.cpuacct, root / "sys/fs/cgroup/cpuacct");
    EXPECT_EQ(m.memory, root / "sys/fs/cgroup/memory");
    EXPECT_FALSE(m.cpuset);
    fs::remove_all(root);
    put(root / "sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
    fs::create_directories(root / "sys/fs/cgroup/system.slice");
    m = find_mounts(root);
    EXPECT_EQ(m.v2, root / "sys/fs/cgroup");
    EXPECT_FALSE(m.cpuacct);
}

TEST(Cgroup, CountersInTheKernelsFormats) {
    // cgroups-here.md: a 1 s busy loop in a v2 group, and the same in v1 cpuacct.
    EXPECT_EQ(parse_cpu_stat_usage_ns("usage_usec 1002055\nuser_usec 1001000\nsystem_usec 1055\n"),
              1002055000U);
    EXPECT_FALSE(parse_cpu_stat_usage_ns("user_usec 1\n"));
    EXPECT_FALSE(parse_cpu_stat_usage_ns("usage_usec 18446744073709551615\n"));
    EXPECT_EQ(parse_usage_percpu("1653739 1000441115 \n"),
              (std::vector<std::uint64_t>{1653739, 1000441115}));
    EXPECT_FALSE(parse_usage_percpu("12 x\n"));
    EXPECT_FALSE(parse_usage_percpu("\n"));
    EXPECT_EQ(parse_memory_limit("4294967296\n"), 4294967296U);
    EXPECT_FALSE(parse_memory_limit("max\n"));
    EXPECT_FALSE(parse_memory_limit("9223372036854771712\n")); // v1's "no limit"
}

TEST(ProcTree, StatWithSpacesAndParenthesesInTheName) {
    // Fields after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt
    // cmajflt utime stime cutime cstime ...
    const auto t =
        parse_proc_stat("4242 (a (b) c) S 17 4242 4242 0 -1 4194304 1 2 3 4 150 25 7 3 20 0 1 0\n");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->ppid, 17);
    EXPECT_EQ(t->own_ticks, 175U);
    EXPECT_EQ(t->children_ticks, 10U);
    EXPECT_FALSE(parse_proc_stat("4242 (x) S 17 1 2\n"));
    EXPECT_FALSE(parse_proc_stat("no parenthesis"));
}

TEST(ProcTree, FollowsThisProcessAndNeverGoesBack) {
    ProcTree tree{"/", ::getpid()};
    const double before = tree.read();
    volatile double x = 0;
    for (int i = 0; i < 30'000'000; ++i) {
        x = x + 1e-9 * i;
    }
    const double after = tree.read();
    EXPECT_GE(after, before);
    tree.add_reaped(0);
    EXPECT_GE(tree.read(), after);
}

TEST(ProcTree, ABudgetOfFilesBoundsWhatOneReadingMayCost) {
    // This process and a child: its stat, its task folder, each thread's children, the
    // child's the same; a budget below that gives no reading, and takes what it read.
    const pid_t child = ::fork();
    if (child == 0) {
        ::pause();
        ::_exit(0);
    }
    ProcTree tree{"/", ::getpid()};
    std::size_t small = 3;
    EXPECT_FALSE(tree.read(small));
    EXPECT_EQ(small, 0U);
    std::size_t large = 100'000;
    const auto seconds = tree.read(large);
    ASSERT_TRUE(seconds);
    EXPECT_GE(*seconds, 0);
    EXPECT_LE(large, 100'000U - 6U); // two processes: at least three files each
    EXPECT_GE(tree.read(), *seconds);
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
}

} // namespace
} // namespace jp::attrib
