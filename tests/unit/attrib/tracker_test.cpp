// SPDX-License-Identifier: BSD-3-Clause
// The tracker's record as the report reads it: in time order, nothing after the
// end. A Python block's usage thread could take a sample after the block's end was
// read; kept, it sorted after the final reading while holding less, and the
// report found the record damaged (cumulative readings that go back).
#include "attrib/tracker.hpp"
#include "files.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace jp::attrib {
namespace {

TEST(Tracker, ASampleLaterThanTheEndIsDroppedAndTheRecordStaysInOrder) {
    TrackerOptions options;
    options.job_cpu = "process-tree"; // this process, read from the real /proc
    options.monitor_is_job = false;
    auto tracker = Tracker::prepare(::getpid(), std::move(options));
    ASSERT_TRUE(tracker);
    tracker->begin(0);
    tracker->sample(50'000'000);
    tracker->sample(300'000'000); // taken after the end below was read
    const auto usage = tracker->finish(200'000'000);
    ASSERT_FALSE(usage.records.empty());
    EXPECT_TRUE(std::ranges::is_sorted(usage.records, {}, &trace::UsageRecord::t_ns));
    EXPECT_EQ(usage.records.back().t_ns, 200'000'000);
    for (const auto& r : usage.records) {
        EXPECT_LE(r.t_ns, 200'000'000);
    }
    // Per package, the cumulative figures never go back.
    for (std::size_t i = 0; i < usage.records.size(); ++i) {
        for (std::size_t j = i + 1; j < usage.records.size(); ++j) {
            if (usage.records[j].package == usage.records[i].package) {
                EXPECT_GE(usage.records[j].job_s, usage.records[i].job_s);
                EXPECT_GE(usage.records[j].busy_s, usage.records[i].busy_s);
            }
        }
    }
}

// `record --job` under Slurm's cgroup/v1 plugins (JobCpu::of_process): slurmstepd's tree
// until the step's cpuacct group is made, then the group, all of whose count is the job's,
// and the monitor's own CPU (outside the group) from then on, counted once (a review: it was
// dropped after the switch, and the spread's running total mixed the two series).
TEST(Tracker, AStepGroupTakenLateKeepsTheTreesTimeAndAddsTheMonitorFromThenOn) {
    namespace fs = std::filesystem;
    const auto root = fs::temp_directory_path() / ("jp-tracker-" + std::to_string(::getpid()));
    fs::remove_all(root);
    const auto stat = [&](int busy_ticks) {
        test::put(root / "proc/stat", "cpu  0 0 0 0 0 0 0 0\ncpu0 " + std::to_string(busy_ticks) +
                                          " 0 0 100000 0 0 0 0\ncpu1 0 0 0 100000 0 0 0 0\n");
    };
    stat(0);
    test::put(root / "sys/fs/cgroup/cpuacct/cpuacct.usage", "1\n");
    test::put(root / "sys/fs/cgroup/cpuset/cpuset.cpus", "0-1\n");
    test::put(root / "proc/950/cgroup", "3:cpuset:/slurm_n1/uid_1/job_3/step_0\n2:cpuacct:/\n");
    test::put(root / "proc/950/stat", "950 (slurmstepd) S 1 950 950 0 -1 0 0 0 0 0 0 0 0 0 20 0\n");
    test::put(root / "proc/950/task/950/children", "");
    TrackerOptions options;
    options.proc_root = root;
    options.sysfs_root = root;
    options.job_running = true;
    auto tracker = Tracker::prepare(950, std::move(options));
    ASSERT_TRUE(tracker);
    tracker->begin(0);
    // The tree: slurmstepd used 0.1 s (10 ticks) before the tasks started.
    test::put(root / "proc/950/stat", "950 (slurmstepd) S 1 950 950 0 -1 0 0 0 0 0 5 5 0 0 20 0\n");
    stat(10);
    tracker->sample(100'000'000);
    // The tasks start: Slurm makes the group; the monitor then burns 0.2 s of its own CPU.
    const auto group = root / "sys/fs/cgroup/cpuacct/slurm_n1/uid_1/job_3/step_0";
    test::put(group / "cpuacct.usage_percpu", "500000000 0 \n");
    stat(100);
    tracker->sample(200'000'000);
    const auto burn_from = std::clock();
    while (static_cast<double>(std::clock() - burn_from) / CLOCKS_PER_SEC < 0.2) {
    }
    test::put(group / "cpuacct.usage_percpu", "1000000000 0 \n");
    stat(200);
    const auto usage = tracker->finish(300'000'000);
    double job_s = 0;
    for (const auto& r : usage.records) {
        if (r.t_ns == 300'000'000) {
            job_s += r.job_s;
        }
    }
    // 0.1 s of the tree, 1.0 s of the group, 0.2 s (and a little more) of the monitor.
    EXPECT_GE(job_s, 0.1 + 1.0 + 0.2 - 1e-6);
    EXPECT_LE(job_s, 0.1 + 1.0 + 0.2 + 0.15);
    const auto facts = usage.facts;
    EXPECT_NE(facts.find("Slurm job 3's cgroup"), std::string::npos) << facts;
    fs::remove_all(root);
}

// A child of this process that waits to be killed (-1 where fork failed).
pid_t paused_child() {
    const pid_t child = ::fork();
    if (child == 0) {
        ::pause();
        ::_exit(0);
    }
    return child;
}

// This process followed as the job, through /proc.
TrackerOptions this_process_as_job() {
    TrackerOptions options;
    options.job_cpu = "process-tree";
    options.monitor_is_job = false;
    return options;
}

// Who has a GPU the job holds, listed by the library (a stand-in here): the job's own
// processes (this one and a child of it), another (this process's parent, outside the job)
// and a PID /proc does not show; only GPUs the job holds are listed, at the first sample and
// then every tenth, never before the job's exec nor after its reap.
TEST(Tracker, TheGpusTheJobHoldsAreListedAndEachProcessCounted) {
    const pid_t child = paused_child();
    ASSERT_GE(child, 0);
    auto options = this_process_as_job();
    options.env = [](const char* name) -> std::optional<std::string> {
        return std::string_view{name} == "CUDA_VISIBLE_DEVICES" ? std::optional<std::string>{"1"}
                                                                : std::nullopt;
    };
    std::vector<int> asked;
    options.gpu_processes.gpus = {0, 1};
    options.gpu_processes.list = [&](int gpu) -> std::optional<std::vector<pid_t>> {
        asked.push_back(gpu);
        return std::vector<pid_t>{::getpid(), child, ::getppid(), 4194304, child};
    };
    auto tracker = Tracker::prepare(::getpid(), std::move(options));
    ASSERT_TRUE(tracker);
    tracker->begin(0); // before the job's exec: nothing listed
    for (int k = 1; k <= 11; ++k) {
        tracker->sample(k * 100'000'000LL); // the first lists, then the eleventh
    }
    const auto usage = tracker->finish(1'150'000'000); // after the reap: nothing listed
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    EXPECT_EQ(asked, (std::vector<int>{1, 1})); // never GPU 0, which the job does not hold
    ASSERT_EQ(usage.gpus.size(), 2U);
    for (const auto& r : usage.gpus) {
        EXPECT_EQ(r.gpu, 1);
        EXPECT_EQ(r.job, 2) << r.t_ns; // this process and its child (listed twice: one)
        EXPECT_EQ(r.other, 1);         // the parent
        EXPECT_EQ(r.unknown, 1);
    }
    EXPECT_EQ(usage.gpus[0].t_ns, 100'000'000);
    EXPECT_EQ(usage.gpus[1].t_ns, 1'100'000'000);
}

// A listed process of the job that has ended (its context not yet gone) stays the job's:
// /proc no longer shows it, but it did at an earlier listing.
TEST(Tracker, AnEndedProcessOfTheJobStaysTheJobs) {
    const pid_t child = paused_child();
    ASSERT_GE(child, 0);
    auto options = this_process_as_job();
    options.gpu_processes.gpus = {0};
    options.gpu_processes.list = [&](int) -> std::optional<std::vector<pid_t>> {
        return std::vector<pid_t>{child};
    };
    auto tracker = Tracker::prepare(::getpid(), std::move(options));
    ASSERT_TRUE(tracker);
    tracker->begin(0);
    tracker->sample(100'000'000); // listed while it runs
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    for (int k = 2; k <= 11; ++k) {
        tracker->sample(k * 100'000'000LL); // listed again once it has ended
    }
    const auto usage = tracker->finish(1'200'000'000);
    ASSERT_EQ(usage.gpus.size(), 2U);
    EXPECT_EQ(usage.gpus[1].job, 1);
    EXPECT_EQ(usage.gpus[1].unknown, 0);
}

TEST(Tracker, AFailedListingIsANoteNotARecord) {
    auto options = this_process_as_job();
    options.gpu_processes.gpus = {0};
    options.gpu_processes.list = [](int) { return std::optional<std::vector<pid_t>>{}; };
    auto tracker = Tracker::prepare(::getpid(), std::move(options));
    ASSERT_TRUE(tracker);
    tracker->begin(0);
    tracker->sample(100'000'000);
    const auto usage = tracker->finish(200'000'000);
    EXPECT_TRUE(usage.gpus.empty());
    EXPECT_NE(usage.facts.find("a GPU's processes could not be listed 1 time:"), std::string::npos)
        << usage.facts;
}

} // namespace
} // namespace jp::attrib
