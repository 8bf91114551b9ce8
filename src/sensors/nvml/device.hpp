// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One NVIDIA GPU: what it offers (probed once at discovery) and how to read it (hot loop).
#include "core/channel.hpp"
#include "sensors/nvml/api.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jp::sensors::nvml {

// Where a GPU's energy comes from, best first.
enum class PowerSource : std::uint8_t {
    energy_counter, // nvmlDeviceGetTotalEnergyConsumption: mJ since the driver loaded (Volta+)
    instant_field,  // field NVML_FI_DEV_POWER_INSTANT, scope GPU: mW
    power_usage,    // nvmlDeviceGetPowerUsage: mW, a 1 s average on Ampere+ (except GA100)
    none,
};

struct Gpu {
    unsigned int index = 0;
    Device handle = nullptr;
    PowerSource power = PowerSource::none;
    // Beside an energy counter read only at anchors: the cheap power reading that profiles
    // the time between them (power_usage, else instant_field), in channel "gpuN.power";
    // none when the counter is read at the interval (anchors off, or no field answers).
    PowerSource field = PowerSource::none;
    std::string no_field; // anchored, with no field answering: what each attempt returned
    bool utilization = false;
    std::string no_power; // with PowerSource::none: what each attempt returned
    // "gpuN" (if any power source works), "gpuN.power" and "gpuN.instant" (with fields),
    // then "gpuN.util"
    std::vector<Channel> channels;
};

// Probes GPU `index` once: identity, the best working power source, utilisation and the
// enforced power limit; with `anchored` and an energy counter, also the field that profiles
// the time between the counter's anchors. Fallbacks taken and missing identity are
// described in `notes`. Fails only when the device handle cannot be had (lost, no
// permission).
[[nodiscard]] Result<Gpu>
probe_gpu(const Api& api, unsigned int index, bool anchored, std::vector<std::string>& notes);

// NVML's bus id ("%08X:%02X:%02X.0", or the legacy "%04X:…") spelt as sysfs does, so that
// hwmon and NVML name one GPU alike: "00000000:3B:00.0" -> "0000:3b:00.0". Nullopt when
// malformed.
[[nodiscard]] std::optional<std::string> normalize_bus_id(std::string_view bus_id);

// One reading of the GPU's power source: joules of the raw counter (energy_counter) or
// watts. Never throws, never allocates; the status comes from classify().
[[nodiscard]] Value read_power(const Api& api, Device device, PowerSource source) noexcept;

// GPU busy percent over NVML's last sample period (1/6 s to 1 s depending on the product).
[[nodiscard]] Value read_utilization(const Api& api, Device device) noexcept;

} // namespace jp::sensors::nvml
