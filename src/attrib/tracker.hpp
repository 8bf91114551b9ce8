// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Follows one job's CPU use against the node's, per CPU package, from its start
// to its end (docs/attribution.md): the rows and facts a trace keeps so reports
// can split each channel's energy between the job and the rest of the node.
#include "attrib/allocation.hpp"
#include "attrib/gpu_use.hpp"
#include "attrib/job_cpu.hpp"
#include "attrib/node_cpu.hpp"
#include "sensors/sensor.hpp"
#include "trace/types.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace jp::attrib {

struct TrackerOptions {
    std::filesystem::path proc_root{"/"};            // /proc and /sys/fs/cgroup: the real ones
    std::filesystem::path sysfs_root{"/"};           // the CPU topology (a fake node's, in tests)
    EnvLookup env;                                   // the job's environment
    std::map<std::string, double> idle_watts;        // per channel name (and "rest"), from config
    std::map<std::string, std::string> idle_learned; // those jouleprofd learned: how
    std::vector<std::string> notes;   // known before the job (what that learning rests on)
    std::string job_cpu = "auto";     // how the job's CPU time is read (JobCpu::track)
    std::size_t max_records = 200000; // beyond, every other reading is dropped
    // The monitor's own CPU time counts as the job's (the cost of measuring it); false
    // where the monitor runs inside the job's process (Python blocks) and is counted already.
    bool monitor_is_job = true;
    // The job runs already and is not the monitor's child (`jouleprof record --job PID`):
    // followed as JobCpu::of_process, never moved.
    bool job_running = false;
    // Who else has the GPUs the job holds, listed at the first sample, then every tenth.
    GpuProcesses gpu_processes;
    // jouleprofd's ledger over [from, to] (ns since the trace epoch): which of the job's
    // CPUs other jobs held too; asked at the job's end, kept in the facts ("ledger").
    sensors::LedgerQuery ledger;
};

class Tracker {
public:
    // Prepares to follow the job (pid, at its gate: it is moved into a cgroup of its
    // own here; or a process of a running job, options.job_running); nullopt when the
    // node's CPU time cannot be read (no /proc/stat). Where the job's group or tree holds
    // the monitor, its CPU time is counted there, not added.
    static std::optional<Tracker> prepare(pid_t pid, TrackerOptions options);
    // The job starts at t_ns (ns since the trace epoch): its use and the node's count from here.
    void begin(std::int64_t t_ns);
    // A reading at t_ns (ns since the trace epoch).
    void sample(std::int64_t t_ns);
    // The last reading after the job was reaped; the usage to store with the run.
    [[nodiscard]] trace::Usage finish(std::int64_t t_ns);
    [[nodiscard]] const Allocation& allocation() const noexcept { return m_alloc; }
    [[nodiscard]] const JobCpu& job() const noexcept { return m_job; }

private:
    Tracker(NodeCpu node, JobCpu job, Allocation alloc, TrackerOptions options);
    void record(std::int64_t t_ns, const std::optional<JobCpu::Reading>& job);
    // The job's use now (its last, after the reap, when last), taking over a Slurm step's
    // group that came since the last reading.
    std::optional<JobCpu::Reading> read_job(bool last);
    // Who has each GPU the job holds now (options.gpu_processes).
    void record_gpus(std::int64_t t_ns);
    // Adds what came as a total since begin() (total_s, and the monitor's own CPU) to the
    // packages, in proportion to weight (busy time on the job's CPUs) or else given CPUs.
    void
    spread(double total_s, const std::vector<double>& weight, const std::vector<double>& given);
    [[nodiscard]] std::string facts() const;

    NodeCpu m_node;
    JobCpu m_job;
    Allocation m_alloc;
    TrackerOptions m_options;
    std::vector<int> m_packages;
    std::vector<double> m_node_base;             // per CPU at the start
    std::vector<double> m_busy_last;             // per CPU at the last reading (since the start)
    JobCpu::Reading m_job_base;                  // the job's use at begin()
    double m_monitor_base_s = 0;                 // the monitor's CPU at begin()
    double m_spread_last = 0;                    // the apportioned total at the last reading
    std::int64_t m_begin_ns = 0;                 // the job's start (trace time)
    std::optional<daemon::LedgerReply> m_ledger; // jouleprofd's, asked at the end
    std::string m_ledger_error;                  // why it could not say, where it could not
    std::vector<double> m_spread_pkg;            // per package: what was apportioned, cumulative
    std::vector<double> m_job_pkg;               // per package, cumulative
    std::vector<double> m_busy_pkg;              // per package, cumulative
    bool m_per_cpu = false;                      // the job's use came per CPU (cgroup v1)
    bool m_monitor_inside = false; // the job's group or tree holds the monitor: counted there
    bool m_awaiting_group = false; // a Slurm step's group still to come (JobCpu::awaits_group)
    std::size_t m_failed_reads = 0;
    std::size_t m_failed_gpu_lists = 0;
    std::size_t m_samples = 0;
    std::size_t m_gpu_every = 10; // samples between listings of the GPUs' processes
    bool m_gpus_thinned = false;
    std::map<pid_t, bool> m_seen_pids; // whether /proc showed each listed PID as the job's
    std::vector<trace::UsageRecord> m_records;
    std::vector<trace::GpuUseRecord> m_gpus;
};

} // namespace jp::attrib
