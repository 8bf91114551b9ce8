// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A job's CPU time followed through /proc when it cannot have a cgroup of its
// own: its process tree from /proc/PID/task/TID/children, each live member's
// utime + stime and cutime + cstime (/proc/PID/stat): a process that ends is
// counted in its reaper's cutime, so the sum is the tree's whole CPU time, short-lived
// processes included. At the job's end the monitor's own RUSAGE_CHILDREN (everything
// its reaped job waited for) is the floor; a process the job left to init counts
// until it leaves the tree, and the total never goes back. /proc/stat's ticks: 10 ms steps.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <sys/types.h>

namespace jp::attrib {

struct ProcTimes {
    pid_t ppid = 0;
    std::uint64_t own_ticks = 0;      // utime + stime
    std::uint64_t children_ticks = 0; // cutime + cstime: reaped children
};
// Parses /proc/PID/stat (the command name may hold spaces and parentheses).
[[nodiscard]] std::optional<ProcTimes> parse_proc_stat(std::string_view text);

class ProcTree {
public:
    ProcTree(std::filesystem::path root, pid_t job);
    // CPU seconds of the job's tree since it began (never less than before).
    [[nodiscard]] double read();
    // The same, reading at most `budget` files of /proc (what is read is taken from it);
    // nullopt, and nothing learned, where the tree needs more (jouleprofd, reading other
    // users' trees, bounds what one user's processes may cost it).
    [[nodiscard]] std::optional<double> read(std::size_t& budget);
    // At the job's end: the CPU time of the waited-for children of the monitor
    // that ran since the job began (rusage_children_s now minus at the start).
    void add_reaped(double children_s);

private:
    std::filesystem::path m_root;
    pid_t m_job;
    double m_tick_s;
    double m_last = 0;
};

// CPU seconds of this process's waited-for children (getrusage RUSAGE_CHILDREN).
[[nodiscard]] double rusage_children_s();

} // namespace jp::attrib
