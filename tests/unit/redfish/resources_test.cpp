// SPDX-License-Identifier: BSD-3-Clause
// Reading DMTF's published mockups (data/redfish) and broken variants of
// them, without a server.
#include "sensors/redfish/json.hpp"
#include "sensors/redfish/resources.hpp"
#include "sensors/redfish/sensor_resource.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace jp::sensors::redfish {
namespace {

namespace fs = std::filesystem;

std::string mockup(const std::string& relative) {
    const auto file = fs::path{JP_DATA_DIR} / "redfish" / relative / "index.json";
    std::ifstream in(file);
    std::stringstream s;
    s << in.rdbuf();
    EXPECT_FALSE(s.str().empty()) << file;
    return s.str();
}

// The mockup with one change made to its JSON.
template <class Edit> std::string edited(const std::string& relative, Edit edit) {
    auto j = Json::parse(mockup(relative));
    edit(j);
    return j.dump();
}

constexpr const char* k_rack = "public-rackmount1/Chassis/1U";

TEST(RedfishResources, ServiceRootAndCollections) {
    EXPECT_EQ(chassis_collection(mockup("public-rackmount1")).value(), "/redfish/v1/Chassis");
    EXPECT_EQ(members(mockup("public-rackmount1/Chassis")).value(),
              std::vector<std::string>{"/redfish/v1/Chassis/1U"});
    EXPECT_EQ(members(mockup("public-catfish/Chassis")).value(),
              std::vector<std::string>{"/redfish/v1/Chassis/1"});
    EXPECT_EQ(members(mockup(std::string{k_rack} + "/Sensors")).value().size(), 41U);
}

TEST(RedfishResources, ChassisLinks) {
    const auto rack = chassis_links(mockup(k_rack)).value();
    EXPECT_EQ(rack.id, "1U");
    EXPECT_EQ(rack.environment_metrics, "/redfish/v1/Chassis/1U/EnvironmentMetrics");
    EXPECT_EQ(rack.sensors, "/redfish/v1/Chassis/1U/Sensors");
    EXPECT_EQ(rack.power, "/redfish/v1/Chassis/1U/Power");
    const auto cat = chassis_links(mockup("public-catfish/Chassis/1")).value();
    EXPECT_EQ(cat.id, "1");
    EXPECT_TRUE(cat.environment_metrics.empty());
    EXPECT_TRUE(cat.sensors.empty());
    EXPECT_EQ(cat.power, "/redfish/v1/Chassis/1/Power");
}

TEST(RedfishResources, EnvironmentMetricsPowerWatts) {
    const std::string path = "/redfish/v1/Chassis/1U/EnvironmentMetrics";
    const auto json = mockup(std::string{k_rack} + "/EnvironmentMetrics");
    const auto env = environment_sources(json, path).value();
    ASSERT_TRUE(env.power);
    EXPECT_FALSE(env.energy); // this mockup has no EnergykWh in EnvironmentMetrics
    EXPECT_EQ(env.power_data_source, "/redfish/v1/Chassis/1U/Sensors/TotalPower");
    EXPECT_EQ(label(*env.power), "PowerWatts");
    EXPECT_DOUBLE_EQ(read_source(json, *env.power).value().value, 374);
}

TEST(RedfishResources, EnvironmentMetricsEnergy) {
    const auto kwh = edited(std::string{k_rack} + "/EnvironmentMetrics", [](Json& j) {
        j["EnergykWh"] = {{"Reading", 12.5}};
    });
    const auto env = environment_sources(kwh, "/p").value();
    ASSERT_TRUE(env.energy);
    EXPECT_EQ(env.energy->quantity, Quantity::energy);
    EXPECT_EQ(label(*env.energy), "EnergykWh");
    EXPECT_DOUBLE_EQ(read_source(kwh, *env.energy).value().value, 12.5 * 3.6e6);
    // Joules win over kW.h when a service gives both.
    const auto both = edited(std::string{k_rack} + "/EnvironmentMetrics", [](Json& j) {
        j["EnergykWh"] = {{"Reading", 12.5}};
        j["EnergyJoules"] = {{"Reading", 45000000.5}};
    });
    const auto env2 = environment_sources(both, "/p").value();
    EXPECT_EQ(env2.energy->units, "J");
    EXPECT_DOUBLE_EQ(read_source(both, *env2.energy).value().value, 45000000.5);
}

TEST(RedfishResources, ReadingBeyondADoubleInJoules) {
    const auto json = edited(std::string{k_rack} + "/EnvironmentMetrics", [](Json& j) {
        j["EnergykWh"] = {{"Reading", 1e307}};
    });
    const auto env = environment_sources(json, "/p").value();
    EXPECT_FALSE(env.energy);
    ASSERT_EQ(env.unusable.size(), 1U);
    EXPECT_EQ(env.unusable[0], "EnergykWh.Reading is out of range (1e+307)");
}

TEST(RedfishResources, NullReadingIsNotUsed) {
    const auto json = edited(std::string{k_rack} + "/EnvironmentMetrics",
                             [](Json& j) { j["PowerWatts"]["Reading"] = nullptr; });
    const auto env = environment_sources(json, "/p").value();
    EXPECT_FALSE(env.power);
    ASSERT_EQ(env.unusable.size(), 1U);
    EXPECT_EQ(env.unusable[0], "PowerWatts.Reading is null (no reading)");
}

TEST(RedfishResources, SensorTotalPowerAndEnergy) {
    const auto power_json = mockup(std::string{k_rack} + "/Sensors/TotalPower");
    const auto power = sensor_source(power_json, "/tp").value();
    EXPECT_EQ(power.quantity, Quantity::power);
    EXPECT_EQ(power.units, "W");
    EXPECT_EQ(power.update_ns, 250'000'000); // SensingInterval PT0.25S
    const auto p = read_source(power_json, power).value();
    EXPECT_DOUBLE_EQ(p.value, 374);
    EXPECT_EQ(p.reading_time, "2019-08-13T04:14:33+06:00");

    const auto energy_json = mockup(std::string{k_rack} + "/Sensors/TotalEnergy");
    const auto energy = sensor_source(energy_json, "/te").value();
    EXPECT_EQ(energy.quantity, Quantity::energy);
    EXPECT_EQ(label(energy), "Reading (kW.h)");
    EXPECT_DOUBLE_EQ(read_source(energy_json, energy).value().value, 325675 * 3.6e6);
    EXPECT_TRUE(read_source(energy_json, energy).value().reading_time.empty());
}

TEST(RedfishResources, SensorThatIsNotTheChassisTotal) {
    const auto psu = edited(std::string{k_rack} + "/Sensors/TotalPower",
                            [](Json& j) { j["PhysicalContext"] = "PowerSupply"; });
    EXPECT_NE(sensor_source(psu, "/x").error().detail.find("PowerSupply"), std::string::npos);
    const auto temp = edited(std::string{k_rack} + "/Sensors/TotalPower",
                             [](Json& j) { j["ReadingType"] = "Temperature"; });
    EXPECT_EQ(sensor_source(temp, "/x").error().detail,
              "ReadingType Temperature is not power or energy");
    const auto units = edited(std::string{k_rack} + "/Sensors/TotalPower",
                              [](Json& j) { j["ReadingUnits"] = "kW.h"; });
    EXPECT_FALSE(sensor_source(units, "/x"));
}

TEST(RedfishResources, StatusDisabledOrCriticalIsNotUsed) {
    const std::string energy = std::string{k_rack} + "/Sensors/TotalEnergy";
    const auto src = sensor_source(mockup(energy), "/te").value();
    const auto disabled = edited(energy, [](Json& j) { j["Status"]["State"] = "Disabled"; });
    auto r = read_source(disabled, src);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::unsupported);
    EXPECT_EQ(r.error().detail, "Status.State is Disabled");
    const auto critical = edited(energy, [](Json& j) { j["Status"]["Health"] = "Critical"; });
    EXPECT_EQ(read_source(critical, src).error().detail, "Status.Health is Critical");
    const auto warning = edited(energy, [](Json& j) { j["Status"]["Health"] = "Warning"; });
    EXPECT_TRUE(read_source(warning, src));
    const auto negative = edited(energy, [](Json& j) { j["Reading"] = -3; });
    EXPECT_EQ(read_source(negative, src).error().detail, "Reading is negative (-3)");
    const auto text = edited(energy, [](Json& j) { j["Reading"] = "12"; });
    EXPECT_EQ(read_source(text, src).error().kind, ErrorKind::parse);
}

TEST(RedfishResources, PowerControl) {
    const auto rack = mockup(std::string{k_rack} + "/Power");
    const auto s = power_control_source(rack, "/redfish/v1/Chassis/1U/Power").value();
    EXPECT_EQ(label(s), "PowerControl[0].PowerConsumedWatts");
    EXPECT_DOUBLE_EQ(read_source(rack, s).value().value, 344);
    const auto cat = mockup("public-catfish/Chassis/1/Power");
    EXPECT_DOUBLE_EQ(read_source(cat, power_control_source(cat, "/p").value()).value().value, 224);
}

TEST(RedfishResources, PowerControlSkipsUnusableEntries) {
    const auto json = edited(std::string{k_rack} + "/Power", [](Json& j) {
        auto second = j["PowerControl"][0];
        second["PowerConsumedWatts"] = 400;
        j["PowerControl"][0]["Status"]["State"] = "Absent";
        j["PowerControl"].push_back(second);
    });
    const auto s = power_control_source(json, "/p").value();
    EXPECT_EQ(s.index, 1U);
    EXPECT_DOUBLE_EQ(read_source(json, s).value().value, 400);
    const auto none = edited(std::string{k_rack} + "/Power",
                             [](Json& j) { j["PowerControl"][0]["Status"]["State"] = "Absent"; });
    EXPECT_EQ(power_control_source(none, "/p").error().detail,
              "PowerControl[0]: Status.State is Absent");
}

TEST(RedfishResources, NotJson) {
    const Source s{"/p", Field::power_watts, Quantity::power, 1, 0, "W", std::nullopt};
    for (const char* bad : {"", "<html><body>502 Bad Gateway</body></html>", "{\"PowerWatts\":",
                            "[1,2]", "null", "{\"PowerWatts\": 5}", "\x01\x02\xff"}) {
        auto r = read_source(bad, s);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().kind, ErrorKind::parse) << bad;
        EXPECT_EQ(r.error().detail.find('\n'), std::string::npos);
    }
    EXPECT_EQ(read_source("<html>", s).error().detail, "not JSON (it starts \"<html>\")");
    EXPECT_FALSE(chassis_collection("{}"));
    EXPECT_FALSE(members("{\"Members\": 3}"));
    EXPECT_TRUE(members("{\"Members\": [{\"@odata.id\": 3}, 7]}").value().empty());
}

TEST(RedfishResources, SensorCandidates) {
    const auto list = members(mockup(std::string{k_rack} + "/Sensors")).value();
    const auto c = sensor_candidates(list, 16);
    ASSERT_EQ(c.size(), 6U); // PS1/PS2 Energy and InputPower, TotalEnergy, TotalPower
    EXPECT_EQ(c[0], "/redfish/v1/Chassis/1U/Sensors/TotalEnergy");
    EXPECT_EQ(c[1], "/redfish/v1/Chassis/1U/Sensors/TotalPower");
    EXPECT_EQ(sensor_candidates(list, 1).size(), 1U);
    EXPECT_EQ(last_segment("/redfish/v1/Chassis/1U/"), "1U");
    EXPECT_EQ(last_segment("1U"), "1U");
}

TEST(RedfishResources, Iso8601Durations) {
    EXPECT_EQ(iso8601_duration_ns("PT0.25S"), 250'000'000);
    EXPECT_EQ(iso8601_duration_ns("PT1M30S"), 90'000'000'000);
    EXPECT_EQ(iso8601_duration_ns("P1DT2H"), (86400LL + 7200) * 1'000'000'000);
    EXPECT_EQ(iso8601_duration_ns("PT10M"), 600'000'000'000);
    for (const char* bad : {"", "P", "PT", "0.25S", "PT-1S", "PTS", "P1H", "PT1D", "PT1.5",
                            "P9999999DT1S", "PT1e400S"}) {
        EXPECT_FALSE(iso8601_duration_ns(bad)) << bad;
    }
}

} // namespace
} // namespace jp::sensors::redfish
