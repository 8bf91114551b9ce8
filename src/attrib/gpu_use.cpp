// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/gpu_use.hpp"

#include <algorithm>
#include <vector>

namespace jp::attrib {

trace::GpuUseRecord
count_gpu_use(std::int64_t t_ns, int gpu, std::span<const pid_t> pids, const InJob& in_job) {
    trace::GpuUseRecord r{t_ns, gpu, 0, 0, 0};
    std::vector<pid_t> seen(pids.begin(), pids.end());
    std::ranges::sort(seen);
    const auto [end, last] = std::ranges::unique(seen); // a PID with two contexts is one
    seen.erase(end, last);
    for (const auto pid : seen) {
        const auto mine = pid > 0 ? in_job(pid) : std::nullopt;
        if (!mine) {
            ++r.unknown;
        } else if (*mine) {
            ++r.job;
        } else {
            ++r.other;
        }
    }
    return r;
}

} // namespace jp::attrib
