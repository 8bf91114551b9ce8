// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the plugin knows of a step on this node (from SPANK items and the
// job's environment), and the monitor's command line made from it.
#include "monitor.hpp"
#include "settings.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include <slurm/spank.h>
}

namespace jp::spank {

struct StepInfo {
    std::string name; // "<jobid>.<stepid>", or "<jobid>.batch"
    std::string node; // the Slurm node name
    std::uint32_t job_id = 0, node_id = 0, nnodes = 0, local_tasks = 0;
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups;
    std::string home, work_dir, base_dir, step_dir, trace, log;
    std::vector<std::pair<std::string, std::string>> meta; // slurm.* and GPU variables
};

// The step on this node, in user_init; nullopt for steps not measured (extern,
// interactive) or when SPANK does not give the job's ids.
[[nodiscard]] std::optional<StepInfo> read_step(spank_t sp, const Settings& settings);

// "<jobid>.<stepid>", or "<jobid>.batch".
[[nodiscard]] std::string step_name(std::uint32_t job, std::uint32_t step);

// Site mode: the job's own directory under site_dir.
[[nodiscard]] std::string job_dir(const Settings& settings, std::uint32_t job_id);

[[nodiscard]] Launch make_launch(const Settings& settings, const StepInfo& step);

// "meta KEY=VALUE" lines for the GPUs the step was given, as its env says now.
[[nodiscard]] std::vector<std::string> gpu_meta(spank_t sp);

} // namespace jp::spank
