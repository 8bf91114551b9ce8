// SPDX-License-Identifier: BSD-3-Clause
// The job of a process that runs already (`jouleprof record --job PID`, the Slurm plugin's
// slurmstepd): the Slurm step whose cgroup it is in, in the layouts Slurm's cgroup/v1 and
// cgroup/v2 plugins really make, else its process tree (attrib/job_cpu.hpp).
#include "attrib/cgroup.hpp"
#include "attrib/job_cpu.hpp"
#include "sys/file.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>

namespace jp::attrib {
namespace {

// Whether a Slurm group path (slurm_step_group's) ends in a step, not its job.
bool names_step(std::string_view group) {
    const auto slash = group.rfind('/');
    return slash != std::string_view::npos && group.substr(slash + 1).starts_with("step_");
}

} // namespace

JobCpu JobCpu::of_process(const std::filesystem::path& root, pid_t pid) {
    JobCpu j;
    j.m_root = root;
    j.m_pid = pid;
    const auto text = sys::read_text(sys::under_root(root, fmt::format("/proc/{}/cgroup", pid)));
    const auto groups = text ? parse_proc_cgroup(*text) : ProcessGroups{};
    j.m_mounts = find_mounts(root);
    const auto& mounts = j.m_mounts;
    // Slurm's cgroup/v1 plugins keep slurmstepd in cpuacct's root and the *job's* freezer
    // group; its cpuset (and memory) group names the step, whose cpuacct group
    // jobacct_gather/cgroup makes for the tasks only when they start, after this monitor has
    // (tests/slurm/slurm_cgroup_test.sh). So where cpuacct names no step, a step (never a
    // job: that would be every step's) named by cpuset or memory is looked for there, and
    // waited for (read()) while the process tree is followed. Groups that name different
    // jobs or steps are trusted for none.
    std::vector<std::string> jobs;
    for (const auto& path :
         {groups.v2, groups.cpuacct, groups.cpuset, groups.memory, groups.freezer}) {
        auto job = path ? slurm_job_of(*path) : std::string{};
        if (!job.empty() && std::ranges::find(jobs, job) == jobs.end()) {
            jobs.push_back(std::move(job));
        }
    }
    std::string v1_step = groups.cpuacct ? slurm_step_group(*groups.cpuacct) : std::string{};
    const bool v1_elsewhere = v1_step.empty();
    bool agree = jobs.size() <= 1;
    for (const auto& path : {groups.cpuset, groups.memory}) {
        auto step = path && v1_elsewhere ? slurm_step_group(*path) : std::string{};
        if (!names_step(step) || step == v1_step) {
            continue;
        }
        if (!v1_step.empty()) {
            jobs = {v1_step, step}; // cpuset and memory name different steps
            agree = false;
        }
        v1_step = std::move(step);
    }
    if (!agree) {
        j.m_notes.push_back(fmt::format("pid {}'s cgroups name different Slurm jobs or steps "
                                        "({}): none of them is taken as the job's",
                                        pid, fmt::join(jobs, ", ")));
        j.follow_tree(root, pid);
        j.m_reaps = false;
        return j;
    }
    for (const auto& [step, mount, kind] :
         {std::tuple{groups.v2 ? slurm_step_group(*groups.v2) : std::string{}, mounts.v2, Kind::v2},
          std::tuple{v1_step, mounts.cpuacct, Kind::v1}}) {
        const auto dir = step.empty() ? std::nullopt : group_dir(mount, step);
        if (!dir) {
            continue;
        }
        if (kind == Kind::v1 && v1_elsewhere) {
            std::error_code ec;
            const bool there = std::filesystem::exists(*dir, ec);
            if (ec) {
                j.m_notes.push_back(fmt::format("cannot look for Slurm's group {}: {}",
                                                dir->string(), ec.message()));
                continue;
            }
            if (!there) {
                j.m_pending_dir = *dir;
                j.m_pending_job = slurm_job_of(step);
                continue;
            }
        }
        if (j.take_slurm_group(kind, *dir, slurm_job_of(step))) {
            j.m_pending_dir.clear();
            return j;
        }
        j.m_notes.push_back(fmt::format("{} counts no CPU time here", dir->string()));
    }
    j.follow_tree(root, pid);
    j.m_reaps = false; // a running job: not the monitor's child
    return j;
}

// A Slurm step's cpuacct group that was still to come (of_process), once it is there:
// taken from here on with nothing as its base (it was made after the monitor began, so
// all it counted is the job's), after what the process tree counted until now.
void JobCpu::take_pending_group() {
    std::error_code ec;
    if (m_pending_dir.empty() || (!std::filesystem::exists(m_pending_dir, ec) && !ec)) {
        return; // still to come
    }
    if (!group_v1_seconds(m_pending_dir)) { // there, but not for this monitor: said once
        m_notes.push_back(fmt::format("Slurm's group {} counts no CPU time readable here: "
                                      "slurmstepd's process tree is followed",
                                      m_pending_dir.string()));
        m_pending_dir.clear();
        m_pending_job.clear();
        return;
    }
    m_kind = Kind::v1;
    m_dir = std::exchange(m_pending_dir, {});
    m_slurm_job = std::move(m_pending_job);
    m_method = fmt::format("Slurm job {}'s cgroup {}", m_slurm_job, m_dir.string());
    m_base_per_cpu.clear();
    m_notes.push_back(fmt::format("slurmstepd's process tree was followed until Slurm made the "
                                  "step's group {} for its tasks",
                                  m_dir.string()));
}

bool JobCpu::take_slurm_group(Kind kind, const std::filesystem::path& dir, std::string job) {
    if (kind == Kind::v2 ? !group_v2_seconds(dir) : !group_v1_seconds(dir)) {
        return false;
    }
    m_slurm_job = std::move(job);
    m_kind = kind;
    m_dir = dir;
    m_method = fmt::format("Slurm job {}'s cgroup {}", m_slurm_job, dir.string());
    if (auto r = read()) { // its use before the job (the monitor's start-up) is not the job's
        m_base_s = r->total_s;
        m_base_per_cpu = r->per_cpu_s;
    }
    return true;
}

} // namespace jp::attrib
