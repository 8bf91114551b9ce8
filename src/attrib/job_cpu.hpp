// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where a job's CPU time is read, chosen when it starts (docs/attribution.md):
//  1. the monitor runs inside a Slurm job's cgroup: that group (the step is the
//     job; it is never left, Slurm constrains and counts it);
//  2. a cgroup of its own made for it: v1 cpuacct where mounted (it counts per CPU,
//     so per package), else v2 (cpu.stat counts CPU with no controller enabled) —
//     where the monitor may create one under its own group and move the job (still
//     at its gate) there;
//  3. its process tree through /proc.
#include "attrib/cgroup.hpp"
#include "attrib/proc_tree.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace jp::attrib {

class JobCpu {
public:
    // root: where /proc and /sys/fs/cgroup are read. pid: the job, not yet running.
    // way: "auto", or "cgroup-v1", "cgroup-v2", "process-tree" to take only that one
    // (the process tree when it cannot be had).
    static JobCpu
    track(const std::filesystem::path& root, pid_t pid, std::string_view way = "auto");
    // The job a running process is part of, followed without moving anything (`jouleprof
    // record`, whose job is not its child): the Slurm step whose group pid runs in (the
    // `step_*` group above slurmstepd's or a task's), where its counter can be read, else
    // pid's process tree.
    static JobCpu of_process(const std::filesystem::path& root, pid_t pid);
    JobCpu(JobCpu&&) noexcept;
    JobCpu& operator=(JobCpu&&) noexcept;
    JobCpu(const JobCpu&) = delete;
    JobCpu& operator=(const JobCpu&) = delete;
    ~JobCpu();

    // CPU seconds since tracking began; per CPU too where the group counts so (v1).
    struct Reading {
        double total_s = 0;
        std::vector<double> per_cpu_s; // empty unless known
    };
    [[nodiscard]] std::optional<Reading> read();
    // The same, reading at most `budget` files (ProcTree::read's; a group costs one).
    [[nodiscard]] std::optional<Reading> read(std::size_t& budget);
    // After the job was reaped: the last reading, then the group made for it
    // removed (left, and said, while processes the job left behind still run in it).
    std::optional<Reading> finish();

    // "cgroup v2 /sys/fs/cgroup/unified/x/jouleprof-123", "process tree of pid 123", ...
    [[nodiscard]] const std::string& method() const noexcept { return m_method; }
    // The group's directory (v2 or v1 cpuacct), empty for the process tree.
    [[nodiscard]] const std::filesystem::path& group() const noexcept { return m_dir; }
    // Why the preferred ways were not taken, and what was left behind; one line each.
    [[nodiscard]] const std::vector<std::string>& notes() const noexcept { return m_notes; }
    // The Slurm job the group belongs to, or "".
    [[nodiscard]] const std::string& slurm_job() const noexcept { return m_slurm_job; }
    // Whether a Slurm step's group that is still to be made will be taken once it is there
    // (of_process before the step's tasks start): the process tree is followed until then.
    [[nodiscard]] bool awaits_group() const noexcept { return !m_pending_dir.empty(); }

    // Whether process pid is the job's (in its group or a group under it; in its process
    // tree), as /proc shows it now; nullopt where /proc has no such process.
    [[nodiscard]] std::optional<bool> contains(pid_t pid) const;

private:
    JobCpu() = default;
    void follow_tree(const std::filesystem::path& root, pid_t pid);
    enum class Kind { none, v2, v1, tree } m_kind = Kind::none;
    // Takes Slurm job `job`'s group dir (v2, or v1 cpuacct) as the job's where its counter
    // reads, what it counted so far as the base; false where it counts nothing here.
    bool take_slurm_group(Kind kind, const std::filesystem::path& dir, std::string job);
    void take_pending_group();
    std::filesystem::path m_root; // where /proc is read
    CgroupMounts m_mounts;        // the hierarchies there, found once
    pid_t m_pid = 0;              // the job's first process
    std::filesystem::path m_dir;
    bool m_made = false;  // the monitor made m_dir and removes it
    bool m_reaps = false; // the tree's first process is the monitor's child (it reaps the job)
    std::string m_method;
    std::string m_slurm_job;
    std::filesystem::path m_pending_dir; // a Slurm step's v1 group still to come, and its job
    std::string m_pending_job;
    std::vector<std::string> m_notes;
    std::optional<double> m_base_s; // the group's usage when tracking began
    std::vector<double> m_base_per_cpu;
    std::unique_ptr<ProcTree> m_tree;
    double m_children_base_s = 0;
};

} // namespace jp::attrib
