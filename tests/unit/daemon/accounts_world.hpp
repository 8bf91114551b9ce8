// SPDX-License-Identifier: BSD-3-Clause
// A fake node for jouleprofd's accounts: its /proc/stat, its CPU topology (four CPUs in two
// packages), Slurm steps' cgroup v2 groups, and real child processes as the clients, each
// bound to a CPU. Root only: /proc/PID must be the clients' users', as the kernel shows it.
#pragma once

#include "../attrib/files.hpp"
#include "daemon/accounts.hpp"

#include <csignal>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

namespace jp::daemon::test {

namespace fs = std::filesystem;
using attrib::test::put;

inline constexpr std::int64_t k_s = 1'000'000'000;

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
        if (::geteuid() != 0) {
            GTEST_SKIP()
                << "needs root to give /proc/PID to the clients' users, as the kernel does";
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

inline std::vector<Channel> packages() {
    Channel a;
    a.name = "cpu0.package";
    a.domain = Domain::cpu_package;
    a.quantity = Quantity::energy;
    Channel b = a;
    b.name = "cpu1.package";
    return {a, b};
}

} // namespace jp::daemon::test
