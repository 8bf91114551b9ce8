// SPDX-License-Identifier: BSD-3-Clause
#include "step_info.hpp"

#include "hostlist.hpp"

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <unistd.h>

namespace jp::spank {
namespace {

// slurm/slurm.h's special step ids (stable since Slurm 20.11; spank.h does not include it).
constexpr std::uint32_t k_pending_step = 0xfffffffd;
constexpr std::uint32_t k_extern_step = 0xfffffffc;
constexpr std::uint32_t k_batch_step = 0xfffffffb;
constexpr std::uint32_t k_interactive_step = 0xfffffffa;

constexpr const char* k_gpu_vars[] = {"CUDA_VISIBLE_DEVICES", "SLURM_STEP_GPUS", "SLURM_JOB_GPUS",
                                      "ROCR_VISIBLE_DEVICES"};

std::string job_env(spank_t sp, const char* name) {
    char buf[4096] = {};
    if (spank_getenv(sp, name, buf, sizeof buf) == ESPANK_SUCCESS) {
        return buf;
    }
    return {};
}

// No SPANK item names the node: slurmstepd's own environment, the step's node
// list at the node's id, the job's environment on a one-node step (a step
// launched from a batch script carries the batch node's SLURMD_NODENAME to
// every node), the host name, in that order.
std::string node_name(spank_t sp, std::uint32_t nnodes, std::uint32_t node_id) {
    if (const char* v = std::getenv("SLURMD_NODENAME"); v != nullptr && *v != '\0') {
        return v;
    }
    if (const auto nodes = expand_hostlist(job_env(sp, "SLURM_STEP_NODELIST"));
        nodes && nodes->size() == nnodes && node_id < nodes->size()) {
        return (*nodes)[node_id];
    }
    if (nnodes <= 1) {
        if (auto v = job_env(sp, "SLURMD_NODENAME"); !v.empty()) {
            return v;
        }
    }
    char host[HOST_NAME_MAX + 1] = {};
    ::gethostname(host, sizeof host - 1);
    std::string h = host;
    return h.substr(0, h.find('.'));
}

// A file name from a node name: '/' and leading dots are not kept.
std::string safe_name(std::string s) {
    for (auto& c : s) {
        c = c == '/' ? '_' : c;
    }
    return s.empty() || s.front() == '.' ? "node" + s : s;
}

} // namespace

std::string job_dir(const Settings& settings, std::uint32_t job_id) {
    return settings.site_dir + "/" + std::to_string(job_id);
}

std::string step_name(std::uint32_t job, std::uint32_t step) {
    return std::to_string(job) + "." + (step == k_batch_step ? "batch" : std::to_string(step));
}

std::optional<StepInfo> read_step(spank_t sp, const Settings& settings) {
    StepInfo s;
    std::uint32_t step = 0;
    if (spank_get_item(sp, S_JOB_ID, &s.job_id) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_UID, &s.uid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_GID, &s.gid) != ESPANK_SUCCESS || step == k_extern_step ||
        step == k_interactive_step || step == k_pending_step) {
        return std::nullopt;
    }
    (void)spank_get_item(sp, S_JOB_NNODES, &s.nnodes);
    (void)spank_get_item(sp, S_JOB_NODEID, &s.node_id);
    (void)spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &s.local_tasks);
    gid_t* groups = nullptr;
    int ngroups = 0;
    if (spank_get_item(sp, S_JOB_SUPPLEMENTARY_GIDS, &groups, &ngroups) == ESPANK_SUCCESS &&
        groups != nullptr && ngroups > 0) {
        s.groups.assign(groups, groups + ngroups);
    } else {
        s.groups = {s.gid};
    }
    s.name = step_name(s.job_id, step);
    s.node = node_name(sp, s.nnodes, s.node_id);
    s.home = job_env(sp, "HOME");
    char cwd[PATH_MAX] = {}; // slurmstepd has entered the job's working directory
    s.work_dir = ::getcwd(cwd, sizeof cwd) != nullptr ? cwd : job_env(sp, "PWD");
    const std::string dir = !settings.dir.empty() ? settings.dir
                            : settings.site && !settings.site_dir.empty()
                                ? job_dir(settings, s.job_id)
                                : "jouleprof";
    s.base_dir = dir.front() == '/' ? dir : s.work_dir + "/" + dir;
    while (s.base_dir.size() > 1 && s.base_dir.back() == '/') {
        s.base_dir.pop_back();
    }
    s.step_dir = s.base_dir + "/" + s.name;
    s.trace = s.step_dir + "/" + safe_name(s.node) + ".jptrace";
    s.log = s.step_dir + "/" + safe_name(s.node) + ".log";
    s.meta = {{"slurm.job_id", std::to_string(s.job_id)},
              {"slurm.step", s.name},
              {"slurm.node", s.node},
              {"slurm.node_id", std::to_string(s.node_id)},
              {"slurm.nnodes", std::to_string(s.nnodes)},
              {"slurm.local_tasks", std::to_string(s.local_tasks)},
              {"slurm.uid", std::to_string(s.uid)}};
    for (const char* var : k_gpu_vars) {
        if (auto v = job_env(sp, var); !v.empty()) {
            s.meta.emplace_back(std::string{"slurm.env."} + var, v);
        }
    }
    // The CPUs the step has on this node, where the task plugin does not bind it to them:
    // slurmstepd's count for the step (S_JOB_NCPUS), else the job's SLURM_CPUS_ON_NODE.
    std::string cpus;
    if (std::uint16_t n = 0; spank_get_item(sp, S_JOB_NCPUS, &n) == ESPANK_SUCCESS && n > 0) {
        cpus = std::to_string(n);
    } else {
        cpus = job_env(sp, "SLURM_CPUS_ON_NODE");
    }
    if (!cpus.empty()) {
        s.meta.emplace_back("slurm.env.SLURM_CPUS_ON_NODE", cpus);
    }
    return s;
}

Launch make_launch(const Settings& settings, const StepInfo& step) {
    Launch l{step.uid,
             step.gid,
             step.groups,
             step.work_dir,
             step.base_dir,
             step.step_dir,
             step.log,
             {settings.jouleprof},
             {}};
    auto& a = l.argv;
    if (!settings.sysfs_root.empty()) {
        a.insert(a.end(), {"--sysfs-root", settings.sysfs_root});
    }
    if (!settings.config.empty()) {
        a.insert(a.end(), {"--config", settings.config});
    }
    a.insert(a.end(), {"record", "-o", step.trace, "-i", settings.interval, "-l",
                       settings.label.empty() ? "slurm" : settings.label, "--command",
                       "slurm step " + step.name});
    for (const auto& [key, value] : step.meta) {
        a.insert(a.end(), {"--meta", key + "=" + value});
    }
    // The step's share of the node: slurmstepd (this process) leads the step, its group
    // (Slurm's cgroups) or its process tree (proctrack/linuxproc) holds the tasks.
    a.insert(a.end(), {"--job", std::to_string(::getpid())});
    l.env = {"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C"};
    if (!step.home.empty()) {
        l.env.push_back("HOME=" + step.home);
    }
    if (!settings.socket.empty()) {
        l.env.push_back("JOULEPROF_SOCKET=" + settings.socket);
    }
    for (const char* var : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"}) {
        if (const char* v = std::getenv(var); v != nullptr) {
            l.env.push_back(std::string{var} + "=" + v);
        }
    }
    return l;
}

std::vector<std::string> gpu_meta(spank_t sp) {
    std::vector<std::string> out;
    for (const char* var : k_gpu_vars) {
        if (auto v = job_env(sp, var); !v.empty()) {
            out.push_back(std::string{"meta slurm.env."} + var + "=" + v);
        }
    }
    return out;
}

} // namespace jp::spank
