// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The compute processes on each NVIDIA GPU (nvmlDeviceGetComputeRunningProcesses_v3): who
// else has a GPU the job holds (docs/attribution.md, "A GPU others use too"). Its own NVML
// session beside the sampler's (the driver counts its inits). One listing cost 7 us with no
// process and 73 us with three on an H200 (docs/gpu-check.md).
#include "sensors/host.hpp"
#include "sensors/nvml/api.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <sys/types.h>
#include <vector>

namespace jp::sensors::nvml {

// R535 drivers fill nvmlDeviceGetComputeRunningProcesses_v3 with a 32-byte entry (a
// usedGpuCcProtectedMemory after the v2 fields) under the same name; others with the 24-byte
// ProcessInfo (driver 580 on an H200, docs/gpu-check.md). The buffer is filled with
// k_unwritten first, and what the driver wrote tells the layout.
constexpr std::size_t k_process_info_v3_size = 32;
constexpr unsigned char k_unwritten = 0xAA;
// The bytes per entry the driver wrote for count entries over a buffer filled with
// k_unwritten; nullopt when it is neither layout.
[[nodiscard]] std::optional<std::size_t> entry_stride(std::span<const unsigned char> bytes,
                                                      unsigned int count);

class Processes {
public:
    // nullopt, and why in `why` (one line), where NVML cannot be had or lacks the call.
    static std::optional<Processes> open(const Host& host, std::string& why);
    // The GPUs' indices.
    [[nodiscard]] std::vector<int> gpus() const;
    // The PIDs on GPU index; nullopt when the call fails.
    [[nodiscard]] std::optional<std::vector<pid_t>> pids(int index) const;

private:
    std::shared_ptr<const Session> m_session;
    std::vector<Device> m_devices; // by index; null where the handle failed
};

} // namespace jp::sensors::nvml
