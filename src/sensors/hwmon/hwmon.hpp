// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// hwmon power and energy attributes (/sys/class/hwmon/hwmonN): node power
// meters (acpi_power_meter), amdgpu, amd_energy, and any other driver shown
// uncounted. One Sensor per device; values in W (power) and J (energy).
#include "sensors/sensor.hpp"

namespace jp::sensors::hwmon {

// Finds this backend's devices under host; never throws. No hwmon directory is
// a note; attributes the user may not read are Findings with a hint; disabled
// attributes (ENODATA) are notes.
[[nodiscard]] Discovery discover(const Host& host);

} // namespace jp::sensors::hwmon
