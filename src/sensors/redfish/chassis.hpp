// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Discovery's walk over the service: the service root, the Chassis collection,
// a chassis, and where its power and energy are, in order of preference:
// EnvironmentMetrics (PowerWatts, EnergyJoules/EnergykWh), Sensors (a chassis
// total of ReadingType Power or Energy*), the deprecated Power resource
// (PowerControl[].PowerConsumedWatts).
#include "sensors/redfish/connection.hpp"
#include "sensors/redfish/resources.hpp"

#include <optional>
#include <string>
#include <vector>

namespace jp::sensors::redfish {

// The Chassis collection's members (paths) worth trying, in the service's order;
// with `wanted`, the one whose Id that is. Errors carry a hint that fixes them.
[[nodiscard]] Result<std::vector<std::string>>
chassis_members(Connection& connection, const std::optional<std::string>& wanted);

struct ChassisReadings {
    ChassisLinks links;
    std::optional<Source> power;
    std::optional<Source> energy;
    std::vector<std::string> notes; // what was skipped and why, for `jouleprof sensors`
};

// The readings of the chassis at path; fails (with what was tried, one line)
// when it has neither power nor energy.
[[nodiscard]] Result<ChassisReadings> chassis_readings(Connection& connection,
                                                       const std::string& path);

// At most this many sensors of a collection are fetched at discovery.
inline constexpr std::size_t k_max_sensor_fetches = 16;

} // namespace jp::sensors::redfish
