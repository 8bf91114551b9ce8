// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// RAPL energy through the perf_event `power` PMU: one counter per (event,
// package), opened on the CPU that sysfs cpumask names for each package.
// Needs kernel.perf_event_paranoid <= 0 or CAP_PERFMON.
#include "sensors/sensor.hpp"

namespace jp::sensors::perf_rapl {

// Finds this backend's devices under host (sysfs and /proc under
// host.sysfs_root; syscalls through host.perf, or the real ones if null);
// never throws. No PMU is a note; EACCES/EPERM from perf_event_open is one
// Finding with the paranoid level and how to allow it.
[[nodiscard]] Discovery discover(const Host& host);

} // namespace jp::sensors::perf_rapl
