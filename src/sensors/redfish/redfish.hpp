// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The BMC's chassis power and energy over Redfish (HTTPS, libcurl), used when
// [sensors.redfish] is configured. See README.md in this folder.
#include "core/duration.hpp"
#include "sensors/sensor.hpp"

#include <chrono>

namespace jp {
struct RedfishConfig;
}

namespace jp::sensors::redfish {

// host.config->redfish; none: nothing (Redfish is only used when configured).
// The poll interval is [sensors] interval for "redfish" when set, else 1 s.
[[nodiscard]] Discovery discover(const Host& host);

struct DiscoverOptions {
    Nanos poll = std::chrono::seconds{1}; // the sensor's min_interval
    // A reading whose value and ReadingTime stand still longer than this (or
    // 4 × its SensingInterval) is stale.
    Nanos stale_after = std::chrono::seconds{10};
};

[[nodiscard]] Discovery discover(const RedfishConfig& config, const DiscoverOptions& options);

} // namespace jp::sensors::redfish
