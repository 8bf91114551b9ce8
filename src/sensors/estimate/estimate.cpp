// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/estimate/estimate.hpp"

#include "sensors/estimate/cpu_sensor.hpp"
#include "sensors/estimate/dram_sensor.hpp"

namespace jp::sensors::estimate {

// Two sensors, one per domain, so that the registry can drop the CPU estimate where a
// measured package counter exists and still keep the DRAM estimate (or the reverse).
Discovery discover(const Host& host) {
    Discovery d;
    if (auto cpu = discover_cpu(host, d.notes)) {
        d.sensors.push_back(std::move(cpu));
    }
    if (auto dram = discover_dram(host, d.notes)) {
        d.sensors.push_back(std::move(dram));
    }
    if (!d.sensors.empty()) {
        d.notes.emplace_back(
            "estimate: the cpu.estimate and dram.estimate figures are estimated from a model "
            "(rated TDP x /proc/stat utilisation; memory size x W/GiB), not measured; they "
            "are used only for domains no measured sensor covers");
    }
    return d;
}

} // namespace jp::sensors::estimate
