// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One AMD GPU as ROCm SMI sees it: what it offers (probed once at discovery) and how to read
// it (hot loop).
#include "core/channel.hpp"
#include "sensors/rocm_smi/api.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace jp::sensors::rocm_smi {

// Where a GPU's energy comes from, best first.
enum class PowerSource : std::uint8_t {
    energy_counter, // rsmi_dev_energy_count_get: raw counts × resolution µJ
    power,          // rsmi_dev_power_get: µW, current socket power where the ASIC has it
    power_average,  // rsmi_dev_power_ave_get (sensor 0): µW, averaged by the SMU
    none,
};

struct Gpu {
    std::uint32_t index = 0;
    PowerSource power = PowerSource::none;
    bool utilization = false;
    std::string no_power;          // with PowerSource::none: what each attempt returned
    std::vector<Channel> channels; // "gpuN" (if any power source works), then "gpuN.util"
};

// Probes device `index` once: identity, the best working power source, busy percent and
// the power cap. Fallbacks taken and missing identity are described in `notes`.
[[nodiscard]] Gpu probe_gpu(const Api& api, std::uint32_t index, std::vector<std::string>& notes);

// rsmi_dev_pci_id_get's BDFID as sysfs spells a PCI address, so that hwmon's amdgpu device
// and this one compare equal: domain = bits 32..63, bus = 8..15, device = 3..7,
// function = 0..2 (bits 28..31 may hold a partition id and are ignored).
// 0x0000000100000300 -> "0001:03:00.0".
[[nodiscard]] std::string format_bdfid(std::uint64_t bdfid);

// One reading of the GPU's power source: joules of the raw counter (energy_counter) or
// watts. Never throws, never allocates; the status comes from classify().
[[nodiscard]] Value read_power(const Api& api, std::uint32_t index, PowerSource source) noexcept;

// Percent of time the GPU was busy (amdgpu's gpu_busy_percent).
[[nodiscard]] Value read_utilization(const Api& api, std::uint32_t index) noexcept;

} // namespace jp::sensors::rocm_smi
