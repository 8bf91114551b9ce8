// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Who had a GPU the job holds, over any stretch of a run, from the run's listings of each
// GPU's compute processes (attrib/gpu_use.hpp), and what that makes of the job's use of the
// GPU (docs/attribution.md, "A GPU others use too"):
//  - only the job's processes, or none: the GPU is the job's, as it holds it;
//  - only other processes: its power above idle is theirs (other processes);
//  - the job's beside others', or PIDs /proc does not show: the driver cannot say who used
//    it (docs/gpu-check.md), so the power above idle is split by the number of processes,
//    and the job's bound spans all of it to none of it.
#include "attrib/share.hpp"
#include "trace/types.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace jp::report {

class GpuPresence {
public:
    GpuPresence() = default;
    explicit GpuPresence(std::span<const trace::GpuUseRecord> records);
    // The most processes of each kind on gpu over [a, b], from the listings around it: the
    // last at or before a, those inside, the first at or after b (who a listing shows may
    // have come any time since the one before); nullopt where gpu was never listed.
    struct Seen {
        int job = 0;
        int other = 0;
        int unknown = 0;
        bool bracketed = false; // a listing at or before a and one at or after b
    };
    [[nodiscard]] std::optional<Seen> over(int gpu, std::int64_t a, std::int64_t b) const;
    // Sets the job's use of gpu's interval [a, b] (which it holds) from who had it; leaves
    // the interval as it is where gpu was never listed.
    void apply(attrib::Interval& in, int gpu, std::int64_t a, std::int64_t b) const;
    // One line for each of gpus (those the job holds) other processes had during [t0, t1].
    [[nodiscard]] std::vector<std::string>
    notes(std::span<const int> gpus, std::int64_t t0, std::int64_t t1) const;
    [[nodiscard]] bool empty() const noexcept { return m_by_gpu.empty(); }

private:
    std::map<int, std::vector<trace::GpuUseRecord>> m_by_gpu; // by time
};

} // namespace jp::report
