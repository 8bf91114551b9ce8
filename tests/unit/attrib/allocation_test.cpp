// SPDX-License-Identifier: BSD-3-Clause
// What a job was given: CPUs per package, memory, GPUs, from a fake node's files
// and the job's environment.
#include "attrib/allocation.hpp"
#include "files.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <unistd.h>

namespace jp::attrib {
namespace {

namespace fs = std::filesystem;

using test::put;

TEST(Allocation, SharesPerPackage) {
    Allocation a;
    a.node_cpus = {0, 1, 2, 3};
    a.given_cpus = {0, 2};
    a.package_of = {{0, 0}, {1, 0}, {2, 1}, {3, 1}};
    EXPECT_DOUBLE_EQ(a.cpu_share(0), 0.5);
    EXPECT_DOUBLE_EQ(a.cpu_share(-1), 0.5);
    a.given_cpus = {0, 1};
    EXPECT_DOUBLE_EQ(a.cpu_share(0), 1.0);
    EXPECT_DOUBLE_EQ(a.cpu_share(1), 0.0);
    EXPECT_DOUBLE_EQ(a.cpu_share(7), 0.5); // a package with no known CPU: the node's share
    EXPECT_FALSE(a.whole_node());
    a.memory_total = 1000;
    a.memory_given = 250;
    EXPECT_DOUBLE_EQ(a.memory_share(), 0.25);
}

TEST(Allocation, GpuLists) {
    EXPECT_EQ(parse_gpu_list("0,2"), (std::vector<int>{0, 2}));
    EXPECT_EQ(parse_gpu_list(""), std::vector<int>{}); // none visible
    EXPECT_FALSE(parse_gpu_list("GPU-8f6c1b2e-aaaa"));
    EXPECT_FALSE(parse_gpu_list("MIG-1/2/3"));
    EXPECT_EQ(parse_gpu_list("-1"), std::vector<int>{});      // CUDA: hides every GPU
    EXPECT_EQ(parse_gpu_list("1,-1,2"), std::vector<int>{1}); // CUDA stops at the first invalid
    Allocation a;
    EXPECT_TRUE(a.holds_gpu(3)); // nothing limits the job
    a.gpus_given = std::vector<int>{1};
    EXPECT_TRUE(a.holds_gpu(1));
    EXPECT_FALSE(a.holds_gpu(0));
}

TEST(Allocation, FromAFakeNodeAndTheJobsEnvironment) {
    const auto root = fs::temp_directory_path() / ("jp-alloc-" + std::to_string(::getpid()));
    fs::remove_all(root);
    for (int cpu = 0; cpu < 4; ++cpu) {
        put(root / ("sys/devices/system/cpu/cpu" + std::to_string(cpu)) / "topology" /
                "physical_package_id",
            cpu < 2 ? "0\n" : "1\n");
    }
    put(root / "proc/meminfo", "MemTotal:        4000000 kB\nMemFree: 1 kB\n");
    put(root / "proc/self/cgroup", "4:memory:/slurm/uid_1/job_9/step_0\n0::/\n");
    put(root / "sys/fs/cgroup/memory/slurm/uid_1/job_9/step_0/memory.limit_in_bytes",
        "1024000000\n");
    put(root / "sys/fs/cgroup/memory/slurm/uid_1/memory.limit_in_bytes", "9223372036854771712\n");
    const std::map<std::string, std::string> env{{"CUDA_VISIBLE_DEVICES", "1,3"}};
    const auto a = allocation_of(::getpid(), root, root, {0, 1, 2, 3}, [&](const char* n) {
        const auto it = env.find(n);
        return it == env.end() ? std::nullopt : std::optional{it->second};
    });
    EXPECT_EQ(a.package_of.at(3), 1);
    EXPECT_EQ(a.memory_total, 4096000000U);
    EXPECT_EQ(a.memory_given, 1024000000U);
    EXPECT_DOUBLE_EQ(a.memory_share(), 0.25);
    EXPECT_EQ(a.gpus_given, (std::vector<int>{1, 3}));
    EXPECT_EQ(a.gpu_source, "CUDA_VISIBLE_DEVICES=1,3");
    EXPECT_FALSE(a.given_cpus.empty()); // this process's own affinity
    fs::remove_all(root);
}

TEST(Allocation, SlurmsCountWhereItDidNotBindTheJob) {
    const auto root = fs::temp_directory_path() / ("jp-alloc-n-" + std::to_string(::getpid()));
    fs::remove_all(root);
    put(root / "proc/meminfo", "MemTotal:        4000000 kB\n");
    const auto with = [&](const char* count) {
        return allocation_of(::getpid(), root, root, {0, 1}, [&](const char* n) {
            return std::string_view{n} == "SLURM_CPUS_ON_NODE" ? std::optional<std::string>{count}
                                                               : std::nullopt;
        });
    };
    auto a = with("1");
    if (a.given_cpus.size() < 2) {
        fs::remove_all(root);
        GTEST_SKIP() << "this process may run on one CPU only";
    }
    EXPECT_EQ(a.cpus_counted, 1U);
    EXPECT_EQ(a.cpus_given(), 1U);
    EXPECT_DOUBLE_EQ(a.cpu_share(0), 0.5);
    EXPECT_DOUBLE_EQ(a.cpu_share(-1), 0.5);
    EXPECT_FALSE(a.whole_node());
    ASSERT_EQ(a.notes.size(), 1U);
    EXPECT_NE(a.notes.front().find("SLURM_CPUS_ON_NODE"), std::string::npos);
    // As many as it may run on, or nonsense: the affinity stands.
    for (const char* v : {"2", "0", "x", "-1", ""}) {
        a = with(v);
        EXPECT_FALSE(a.cpus_counted) << v;
        EXPECT_TRUE(a.notes.empty()) << v;
    }
    fs::remove_all(root);
}

} // namespace
} // namespace jp::attrib
