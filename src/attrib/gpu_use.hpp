// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Who has a GPU the job holds (docs/attribution.md, "A GPU others use too"): the compute
// processes the driver lists on it, each counted as the job's, another process's, or
// unknown (a PID this node's /proc does not show: another PID namespace, or one that has
// ended). NVML cannot say how much of a GPU each process used when their contexts
// time-slice (docs/gpu-check.md: per-process utilisation and accounting name one process
// for the whole), so the report splits by who was there, with a bound, not by use.
#include "trace/types.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <sys/types.h>
#include <vector>

namespace jp::attrib {

// The PIDs of the compute processes on GPU `index`; nullopt when the library cannot say.
using ListGpuProcesses = std::function<std::optional<std::vector<pid_t>>(int index)>;

struct GpuProcesses {
    ListGpuProcesses list; // empty: nobody lists them (no NVML, or disabled)
    std::vector<int> gpus; // the indices the library has
};

// Whether a process is the job's; nullopt where /proc has no such process.
using InJob = std::function<std::optional<bool>(pid_t)>;

// One reading: pids on gpu at t_ns, counted.
[[nodiscard]] trace::GpuUseRecord
count_gpu_use(std::int64_t t_ns, int gpu, std::span<const pid_t> pids, const InJob& in_job);

} // namespace jp::attrib
