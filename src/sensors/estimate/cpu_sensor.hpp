// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The estimated CPU power channel "cpu.estimate": TDP model × /proc/stat utilisation.
#include "sensors/sensor.hpp"

#include <memory>
#include <string>
#include <vector>

namespace jp::sensors::estimate {

// Builds the CPU sensor from /proc/stat, /proc/cpuinfo, sysfs topology under
// host.sysfs_root and host.config's [node] overrides. Returns null with a note when
// /proc/stat is missing or unreadable at discovery. Never throws for missing files.
[[nodiscard]] std::unique_ptr<Sensor> discover_cpu(const Host& host,
                                                   std::vector<std::string>& notes);

} // namespace jp::sensors::estimate
