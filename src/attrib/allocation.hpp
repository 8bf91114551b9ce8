// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a job was given on its node: the CPUs it may run on (its affinity, which
// the kernel keeps within its cpuset), the memory its cgroups allow, the GPUs its
// scheduler or environment gives it; and where each CPU sits (its package).
#include "attrib/cgroup.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace jp::attrib {

struct Allocation {
    std::vector<int> node_cpus;  // online
    std::vector<int> given_cpus; // within node_cpus
    // The scheduler gave this many of given_cpus without binding the job to them (Slurm's
    // task/none, or slurmstepd's own affinity): which ones is not known; each package
    // then counts as given by this many of the node's CPUs.
    std::optional<std::size_t> cpus_counted;
    std::map<int, int> package_of;             // CPU -> package (sysfs topology); absent: package 0
    std::optional<std::uint64_t> memory_total; // bytes (MemTotal)
    std::optional<std::uint64_t> memory_given; // the lowest limit of its memory groups
    std::optional<std::vector<int>> gpus_given; // GPU indices; nullopt: every GPU
    std::string gpu_source;                     // "SLURM_STEP_GPUS=1", "" when nothing limits
    std::vector<std::string> notes;

    // The package CPU cpu sits in (package_of's; 0 where the topology does not say).
    [[nodiscard]] int package(int cpu) const;
    // The fraction of package p's CPUs the job was given (-1: the whole node's).
    [[nodiscard]] double cpu_share(int package) const;
    // How many CPUs the job was given.
    [[nodiscard]] std::size_t cpus_given() const;
    [[nodiscard]] double memory_share() const;
    [[nodiscard]] bool holds_gpu(int index) const;
    // The job was given every CPU, all memory and every GPU.
    [[nodiscard]] bool whole_node() const;
};

// GPUs named by an environment value ("0,2", "" for none); nullopt when it names
// them otherwise (UUIDs, MIG instances): they cannot be matched to indices.
[[nodiscard]] std::optional<std::vector<int>> parse_gpu_list(std::string_view text);

using EnvLookup = std::function<std::optional<std::string>(const char*)>;

// proc_root: /proc and /sys/fs/cgroup; sysfs_root: the CPU topology (so a fake node's
// packages are its own). node_cpus: the CPUs online. env: the job's environment. Its memory
// groups are those of groups_of (0: the caller's own, which a monitor shares with its job).
[[nodiscard]] Allocation allocation_of(pid_t pid,
                                       const std::filesystem::path& proc_root,
                                       const std::filesystem::path& sysfs_root,
                                       const std::vector<int>& node_cpus,
                                       const EnvLookup& env,
                                       pid_t groups_of = 0);

} // namespace jp::attrib
