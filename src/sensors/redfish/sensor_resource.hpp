// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Sensor resources (Chassis/ID/Sensors/NAME): which of them is the chassis'
// total power or energy, in what units, and their reading.
#include "sensors/redfish/json.hpp"
#include "sensors/redfish/resources.hpp"

namespace jp::sensors::redfish {

// A Sensor resource as a chassis-wide power or energy source: ReadingType Power,
// EnergyJoules, EnergyWh or EnergykWh, PhysicalContext Chassis (or none) and
// ElectricalContext Total (or none). Fails with the reason it is not one.
[[nodiscard]] Result<Source> sensor_source(std::string_view json, const std::string& path);
// Of a sensor collection's members, those whose name speaks of power or energy,
// "Total" ones first, at most `limit`: the ones worth fetching.
[[nodiscard]] std::vector<std::string> sensor_candidates(const std::vector<std::string>& members,
                                                         std::size_t limit);

// The reading of a Sensor resource (Field::sensor): Reading × s.scale and its
// ReadingTime; a Status not Enabled or Health Critical is unusable.
[[nodiscard]] Result<Sample> sensor_reading(const Json& j, const Source& s);

} // namespace jp::sensors::redfish
