// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Reading Redfish resources (JSON text from the BMC, untrusted): the links that
// lead from the service root to a chassis, and where in a chassis' resources
// its power and energy are. Pure functions: no I/O, never throw.
#include "core/channel.hpp"
#include "core/error.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jp::sensors::redfish {

// Which property of a resource holds a channel's value.
enum class Field : std::uint8_t {
    power_watts,   // EnvironmentMetrics: PowerWatts.Reading (W)
    energy_kwh,    // EnvironmentMetrics: EnergykWh.Reading (kW.h)
    energy_joules, // EnvironmentMetrics: EnergyJoules.Reading (J)
    sensor,        // Sensor: Reading in ReadingUnits (scale)
    power_control, // Power (deprecated): PowerControl[index].PowerConsumedWatts (W)
};

// Where one value is: the resource's path and the property in it.
struct Source {
    std::string path; // "/redfish/v1/Chassis/1U/EnvironmentMetrics"
    Field field = Field::power_watts;
    Quantity quantity = Quantity::power;
    double scale = 1;                      // to SI: W or J (kW.h: 3.6e6)
    std::size_t index = 0;                 // PowerControl[index]
    std::string units;                     // as the resource names them: "W", "kW.h"
    std::optional<std::int64_t> update_ns; // the Sensor's SensingInterval, when it says
};

// "PowerWatts", "EnergykWh", "Reading (kW.h)", "PowerControl[0].PowerConsumedWatts".
[[nodiscard]] std::string label(const Source& s);

// One value read from a resource.
struct Sample {
    double value = 0;         // SI: W or J
    std::string reading_time; // the Sensor's ReadingTime as given; empty when it has none
};

// The value at s in a resource's JSON. Fails with ErrorKind::parse (not JSON, no
// such property) or ErrorKind::unsupported (Status not Enabled or Health Critical,
// a null, negative or non-finite reading); the detail is one line.
[[nodiscard]] Result<Sample> read_source(std::string_view json, const Source& s);

// Service root: the Chassis collection's path.
[[nodiscard]] Result<std::string> chassis_collection(std::string_view root_json);
// A collection's member paths, in its order.
[[nodiscard]] Result<std::vector<std::string>> members(std::string_view collection_json);

// A member's id as its path ends: "/redfish/v1/Chassis/1U/" -> "1U".
[[nodiscard]] std::string_view last_segment(std::string_view path);

// What a Chassis resource links to (paths, empty when absent).
struct ChassisLinks {
    std::string id;   // "1U"
    std::string name; // "Computer System Chassis"
    std::string environment_metrics;
    std::string sensors;
    std::string power; // deprecated Power resource
};
[[nodiscard]] Result<ChassisLinks> chassis_links(std::string_view chassis_json);

// The chassis' power and energy in EnvironmentMetrics, where it has them.
struct EnvironmentSources {
    std::optional<Source> power;
    std::optional<Source> energy;
    std::string power_data_source;     // PowerWatts.DataSourceUri: the Sensor behind it
    std::vector<std::string> unusable; // "PowerWatts.Reading is null (no reading)", for notes
};
[[nodiscard]] Result<EnvironmentSources> environment_sources(std::string_view json,
                                                             const std::string& path);

// The deprecated Power resource: the first PowerControl entry with a usable
// PowerConsumedWatts (the chassis' input power by convention).
[[nodiscard]] Result<Source> power_control_source(std::string_view json, const std::string& path);

} // namespace jp::sensors::redfish
