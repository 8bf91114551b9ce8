// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/allocation.hpp"

#include "core/text.hpp"
#include "sys/file.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <sched.h>

namespace jp::attrib {
namespace {

std::vector<int> affinity_of(pid_t pid, const std::vector<int>& node_cpus) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(pid, sizeof set, &set) != 0) {
        return node_cpus;
    }
    std::vector<int> given;
    for (const int cpu : node_cpus) {
        if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(static_cast<std::size_t>(cpu), &set)) {
            given.push_back(cpu);
        }
    }
    return given;
}

std::optional<std::uint64_t> mem_total(const std::filesystem::path& root) {
    const auto text = sys::read_text(sys::under_root(root, "/proc/meminfo"));
    if (!text) {
        return std::nullopt;
    }
    std::string_view t = *text;
    const auto at = t.find("MemTotal:");
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    t.remove_prefix(at + 9);
    t = sys::trim(t.substr(0, t.find('\n')));
    std::uint64_t kib = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), kib);
    if (ec != std::errc{} || std::string_view{end, t.data() + t.size()} != " kB" ||
        kib > (std::uint64_t{1} << 50)) {
        return std::nullopt;
    }
    return kib * 1024;
}

// The lowest limit on the memory group at dir and every group above it up to mount.
std::optional<std::uint64_t>
memory_limit(std::filesystem::path dir, const std::filesystem::path& mount, const char* file) {
    std::optional<std::uint64_t> lowest;
    for (int depth = 0; depth < 64; ++depth) {
        if (auto text = sys::read_text(dir / file)) {
            if (auto v = parse_memory_limit(*text); v && (!lowest || *v < *lowest)) {
                lowest = v;
            }
        }
        if (dir == mount || !dir.has_parent_path() || dir.parent_path() == dir) {
            break;
        }
        dir = dir.parent_path();
    }
    return lowest;
}

} // namespace

std::size_t Allocation::cpus_given() const {
    return cpus_counted ? std::min(*cpus_counted, given_cpus.size()) : given_cpus.size();
}

int Allocation::package(int cpu) const {
    const auto it = package_of.find(cpu);
    return it == package_of.end() ? 0 : it->second;
}

double Allocation::cpu_share(int package) const {
    if (cpus_counted && !node_cpus.empty()) {
        return static_cast<double>(cpus_given()) / static_cast<double>(node_cpus.size());
    }
    std::size_t all = 0;
    std::size_t given = 0;
    const auto in = [&](int cpu) { return package < 0 || this->package(cpu) == package; };
    for (const int cpu : node_cpus) {
        all += in(cpu) ? 1U : 0U;
    }
    for (const int cpu : given_cpus) {
        given += in(cpu) ? 1U : 0U;
    }
    if (all == 0) { // a package with no CPU of ours known: the node's share
        return package < 0 ? 1.0 : cpu_share(-1);
    }
    return static_cast<double>(given) / static_cast<double>(all);
}

double Allocation::memory_share() const {
    if (!memory_total || !memory_given || *memory_total == 0) {
        return 1.0;
    }
    return std::min(1.0, static_cast<double>(*memory_given) / static_cast<double>(*memory_total));
}

bool Allocation::holds_gpu(int index) const {
    return !gpus_given || std::ranges::find(*gpus_given, index) != gpus_given->end();
}

bool Allocation::whole_node() const {
    return cpus_given() == node_cpus.size() && memory_share() >= 1.0 && !gpus_given;
}

std::optional<std::vector<int>> parse_gpu_list(std::string_view text) {
    text = sys::trim(text);
    std::vector<int> gpus;
    while (!text.empty()) {
        const auto comma = text.find(',');
        const auto item = sys::trim(text.substr(0, comma));
        int v = -1;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || v > 4096 ||
            gpus.size() > 4096) {
            return std::nullopt;
        }
        if (v < 0) {
            break; // CUDA stops at the first invalid index: "-1" hides every GPU
        }
        gpus.push_back(v);
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    }
    return gpus;
}

Allocation allocation_of(pid_t pid,
                         const std::filesystem::path& proc_root,
                         const std::filesystem::path& sysfs_root,
                         const std::vector<int>& node_cpus,
                         const EnvLookup& env,
                         pid_t groups_of) {
    Allocation a;
    a.node_cpus = node_cpus;
    a.given_cpus = affinity_of(pid, node_cpus);
    // Slurm's count where it did not bind the job to its CPUs (task/none; slurmstepd's own
    // affinity under task/affinity): its share of each package is that count's.
    if (const auto n = env("SLURM_CPUS_ON_NODE")) {
        const auto count = sys::parse_u64(sys::trim(*n));
        if (count && *count > 0 && *count < a.given_cpus.size()) {
            a.cpus_counted = static_cast<std::size_t>(*count);
            a.notes.push_back(fmt::format(
                "Slurm gave the job {} CPUs of the {} it may run on (SLURM_CPUS_ON_NODE), not "
                "bound to them: each package's idle power by {} of the node's {} CPUs",
                *count, a.given_cpus.size(), *count, node_cpus.size()));
        }
    }
    for (const int cpu : node_cpus) {
        const auto id = sys::read_u64(sys::under_root(
            sysfs_root,
            fmt::format("/sys/devices/system/cpu/cpu{}/topology/physical_package_id", cpu)));
        if (id && *id < 4096) {
            a.package_of[cpu] = static_cast<int>(*id);
        }
    }
    a.memory_total = mem_total(proc_root);
    const auto self = sys::read_text(
        sys::under_root(proc_root, groups_of > 0 ? fmt::format("/proc/{}/cgroup", groups_of)
                                                 : "/proc/self/cgroup"));
    const auto groups = self ? parse_proc_cgroup(*self) : ProcessGroups{};
    const auto mounts = find_mounts(proc_root);
    if (auto dir = group_dir(mounts.v2, groups.v2)) {
        a.memory_given = memory_limit(*dir, *mounts.v2, "memory.max");
    }
    if (auto dir = group_dir(mounts.memory, groups.memory); dir && !a.memory_given) {
        a.memory_given = memory_limit(*dir, *mounts.memory, "memory.limit_in_bytes");
    }
    if (a.memory_given && a.memory_total && *a.memory_given >= *a.memory_total) {
        a.memory_given.reset(); // a limit above the memory there is does not limit
    }
    // Slurm's lists are the node's GPU indices; the runtimes' are theirs (renumbered under
    // Slurm's ConstrainDevices, and CUDA's fastest-first unless CUDA_DEVICE_ORDER=PCI_BUS_ID).
    for (const char* name : {"SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES",
                             "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"}) {
        const auto value = env(name);
        if (!value) {
            continue;
        }
        if (auto gpus = parse_gpu_list(*value)) {
            a.gpus_given = std::move(gpus);
            a.gpu_source = one_line(fmt::format("{}={}", name, *value), 80);
            if (std::string_view{name} == "CUDA_VISIBLE_DEVICES" &&
                env("CUDA_DEVICE_ORDER") != std::optional<std::string>{"PCI_BUS_ID"}) {
                a.notes.emplace_back("CUDA_VISIBLE_DEVICES is taken as the node's GPU indices "
                                     "(they are when CUDA_DEVICE_ORDER=PCI_BUS_ID)");
            }
        } else {
            a.notes.push_back(fmt::format(
                "{} names GPUs by something other than their index ('{}'): every GPU is "
                "counted as the job's",
                name, one_line(*value, 64)));
        }
        break;
    }
    return a;
}

} // namespace jp::attrib
