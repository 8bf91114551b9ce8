// SPDX-License-Identifier: BSD-3-Clause
#pragma once
#include "sensors/sensor.hpp"

#include <span>

namespace jp::sensors {

// One row per source family, in order of preference.
[[nodiscard]] std::span<const Backend> backends() noexcept;

// Runs every enabled backend. Fallback sensors are kept only for domains that
// no measured channel covers.
[[nodiscard]] Discovery discover_all(const Host& host);

// The channel table the sampler and trace use: all channels of all sensors in
// order, with duplicates across backends (one GPU seen by NVML and hwmon, RAPL
// through powercap and perf) marked not counted.
[[nodiscard]] std::vector<Channel> channel_table(std::span<const std::unique_ptr<Sensor>> sensors);

} // namespace jp::sensors
