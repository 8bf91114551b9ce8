// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A process's control groups and what they say about a job: the CPU time it
// used and the cores and memory it was given. Both cgroup versions, in the
// layouts the kernel, systemd and Slurm's cgroup/v1 and cgroup/v2 plugins make
// (docs/attribution.md). Mounts are found at their conventional places under a
// root, so tests point the same code at fake trees:
//   v2:  ROOT/sys/fs/cgroup (a unified mount: cgroup.controllers there) or
//        ROOT/sys/fs/cgroup/unified (the hybrid layout)
//   v1:  ROOT/sys/fs/cgroup/<controller> (cpuacct, cpuset, memory)
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jp::attrib {

struct CgroupMounts {
    std::optional<std::filesystem::path> v2;
    std::optional<std::filesystem::path> cpuacct; // v1
    std::optional<std::filesystem::path> cpuset;  // v1
    std::optional<std::filesystem::path> memory;  // v1
};
[[nodiscard]] CgroupMounts find_mounts(const std::filesystem::path& root);

// One process's groups: each the path inside its hierarchy ("/slurm/uid_1000/job_7/step_0").
struct ProcessGroups {
    std::optional<std::string> v2;
    std::optional<std::string> cpuacct;
    std::optional<std::string> cpuset;
    std::optional<std::string> memory;
    std::optional<std::string> freezer; // v1: where proctrack/cgroup puts slurmstepd
};
// Parses /proc/PID/cgroup ("0::/path" for v2, "4:memory:/path" or "2:cpu,cpuacct:/path"
// for v1). Lines it does not know are skipped; a path must be absolute, without "..".
[[nodiscard]] ProcessGroups parse_proc_cgroup(std::string_view text);

// A group's directory: its path joined under the mount; nullopt without that mount.
[[nodiscard]] std::optional<std::filesystem::path>
group_dir(const std::optional<std::filesystem::path>& mount,
          const std::optional<std::string>& path);

// "usage_usec N" of a v2 cpu.stat, in ns.
[[nodiscard]] std::optional<std::uint64_t> parse_cpu_stat_usage_ns(std::string_view text);
// v1 cpuacct.usage_percpu: ns per CPU, in CPU order.
[[nodiscard]] std::optional<std::vector<std::uint64_t>> parse_usage_percpu(std::string_view text);
// A memory limit: v2 memory.max ("max": none) or v1 memory.limit_in_bytes (a value
// near 2^63 is v1's "no limit"). nullopt: no limit, or not a number.
[[nodiscard]] std::optional<std::uint64_t> parse_memory_limit(std::string_view text);

// The job a Slurm cgroup path names ("/slurm/uid_1000/job_42/step_0",
// "/system.slice/slurmstepd.scope/job_42/step_batch/user/task_0"): "42", or "".
[[nodiscard]] std::string slurm_job_of(std::string_view path);

// The step's group of a path inside a Slurm job: the path up to its `step_*` component
// ("/system.slice/slurmstepd.scope/job_42/step_0" of ".../job_42/step_0/slurm"), or up
// to `job_*` where no step follows it; "" outside a Slurm job.
[[nodiscard]] std::string slurm_step_group(std::string_view path);

// A group's CPU seconds: v2's cpu.stat usage; v1 cpuacct's per CPU. nullopt where unreadable.
[[nodiscard]] std::optional<double> group_v2_seconds(const std::filesystem::path& dir);
[[nodiscard]] std::optional<std::vector<double>> group_v1_seconds(const std::filesystem::path& dir);

} // namespace jp::attrib
