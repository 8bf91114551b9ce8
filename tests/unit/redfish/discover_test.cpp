// SPDX-License-Identifier: BSD-3-Clause
// Discovery and reads against a real peer: nginx serving DMTF's mockups over
// TLS (a test CA) with Basic auth. rackmount1 has EnvironmentMetrics, Sensors
// (TotalPower, TotalEnergy in kW.h) and the deprecated Power; catfish only Power.
#include "config/config.hpp"
#include "redfish_server.hpp"
#include "sensor_checks.hpp"
#include "sensors/redfish/json.hpp"
#include "sensors/redfish/redfish.hpp"
#include "served_test.hpp"

#include <gtest/gtest.h>
#include <thread>

namespace jp::sensors::redfish {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::find;
using test::read_all;
using test::redfish::RedfishServer;
using test::redfish::ServerOptions;

class RedfishDiscover : public test::redfish::ServedTest {
protected:
    Discovery discover_configured() {
        Config c;
        c.redfish = m_config;
        Host h;
        h.config = &c;
        return discover(h);
    }
    // Changes one resource of the served copy (rel under /redfish/v1).
    template <class Edit> void edit(const std::string& rel, Edit e) {
        const auto file = m_server->root() / rel / "index.json";
        auto j = Json::parse(test::redfish::read_file(file));
        e(j);
        test::redfish::write_file(file, j.dump(2));
    }
};

TEST_F(RedfishDiscover, NotConfiguredMeansNothing) {
    Config c;
    Host h;
    h.config = &c;
    const auto d = discover(h);
    EXPECT_TRUE(d.sensors.empty());
    EXPECT_TRUE(d.unreadable.empty());
    EXPECT_TRUE(d.notes.empty());
    EXPECT_TRUE(discover(Host{}).sensors.empty());
}

TEST_F(RedfishDiscover, Rackmount1PowerAndEnergy) {
    serve();
    auto d = discover_configured();
    ASSERT_EQ(d.sensors.size(), 1U) << (d.unreadable.empty() ? "" : d.unreadable[0].reason);
    auto& s = *d.sensors[0];
    EXPECT_EQ(s.backend(), "redfish");
    EXPECT_TRUE(s.slow());
    EXPECT_EQ(s.min_interval(), 1s);
    ASSERT_EQ(s.channels().size(), 2U);
    const auto* node = find(s, "redfish.node");
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(node->domain, Domain::node);
    EXPECT_EQ(node->quantity, Quantity::power);
    EXPECT_EQ(node->provenance, Provenance::measured);
    EXPECT_TRUE(node->counted);
    EXPECT_EQ(node->source, "redfish:" + m_server->url() +
                                "/redfish/v1/Chassis/1U/EnvironmentMetrics PowerWatts");
    EXPECT_EQ(node->update_ns, 250'000'000); // its DataSourceUri sensor: SensingInterval PT0.25S
    const auto* energy = find(s, "redfish.node.energy");
    ASSERT_NE(energy, nullptr);
    EXPECT_EQ(energy->quantity, Quantity::energy);
    EXPECT_FALSE(energy->counted); // kW.h: shown beside the power, not summed
    EXPECT_EQ(energy->source, "redfish:" + m_server->url() +
                                  "/redfish/v1/Chassis/1U/Sensors/TotalEnergy Reading (kW.h)");
    EXPECT_TRUE(test::any_note(d, "counts in kW.h"));

    const auto v = read_all(s);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_DOUBLE_EQ(v[0].value, 374);
    EXPECT_EQ(v[1].status, ReadStatus::ok);
    EXPECT_DOUBLE_EQ(v[1].value, 325675 * 3.6e6);
}

TEST_F(RedfishDiscover, ReadingsThatChange) {
    serve();
    auto d = discover_configured();
    ASSERT_EQ(d.sensors.size(), 1U);
    auto& s = *d.sensors[0];
    EXPECT_DOUBLE_EQ(read_all(s)[0].value, 374);
    edit("Chassis/1U/EnvironmentMetrics", [](Json& j) { j["PowerWatts"]["Reading"] = 512.5; });
    edit("Chassis/1U/Sensors/TotalEnergy", [](Json& j) { j["Reading"] = 325676.25; });
    auto v = read_all(s);
    EXPECT_DOUBLE_EQ(v[0].value, 512.5);
    EXPECT_DOUBLE_EQ(v[1].value, 325676.25 * 3.6e6);
    // A disabled sensor is not used: retry for its channel only.
    edit("Chassis/1U/Sensors/TotalEnergy", [](Json& j) { j["Status"]["State"] = "Disabled"; });
    v = read_all(s);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_EQ(v[1].status, ReadStatus::retry);
}

TEST_F(RedfishDiscover, EnergyInJoulesIsTheNodeCounter) {
    serve();
    edit("Chassis/1U/EnvironmentMetrics", [](Json& j) {
        j["EnergyJoules"] = {{"Reading", 9000000.5}};
    });
    auto d = discover_configured();
    ASSERT_EQ(d.sensors.size(), 1U);
    const auto* node = find(*d.sensors[0], "redfish.node");
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(node->quantity, Quantity::energy);
    EXPECT_TRUE(node->counted);
    EXPECT_TRUE(node->source.ends_with("/EnvironmentMetrics EnergyJoules"));
    const auto* power = find(*d.sensors[0], "redfish.node.power");
    ASSERT_NE(power, nullptr);
    EXPECT_FALSE(power->counted);
    const auto v = read_all(*d.sensors[0]);
    EXPECT_DOUBLE_EQ(v[0].value, 9000000.5);
    EXPECT_DOUBLE_EQ(v[1].value, 374);
}

TEST_F(RedfishDiscover, CatfishPowerControlOnly) {
    serve({.tree = "public-catfish"});
    auto d = discover_configured();
    ASSERT_EQ(d.sensors.size(), 1U) << (d.unreadable.empty() ? "" : d.unreadable[0].reason);
    ASSERT_EQ(d.sensors[0]->channels().size(), 1U);
    const auto& ch = d.sensors[0]->channels()[0];
    EXPECT_EQ(ch.name, "redfish.node");
    EXPECT_EQ(ch.quantity, Quantity::power);
    EXPECT_EQ(ch.source, "redfish:" + m_server->url() +
                             "/redfish/v1/Chassis/1/Power PowerControl[0].PowerConsumedWatts");
    EXPECT_DOUBLE_EQ(read_all(*d.sensors[0])[0].value, 224);
}

TEST_F(RedfishDiscover, FallsBackToSensorsThenToPower) {
    serve();
    fs::remove(m_server->root() / "Chassis/1U/EnvironmentMetrics/index.json");
    auto d = discover_configured();
    ASSERT_EQ(d.sensors.size(), 1U);
    EXPECT_TRUE(find(*d.sensors[0], "redfish.node")->source.ends_with("/TotalPower Reading (W)"));
    EXPECT_TRUE(test::any_note(d, "EnvironmentMetrics: HTTP 404 Not Found"));
    EXPECT_DOUBLE_EQ(read_all(*d.sensors[0])[0].value, 374);

    fs::remove_all(m_server->root() / "Chassis/1U/Sensors");
    d = discover_configured();
    ASSERT_EQ(d.sensors.size(), 1U);
    const auto* node = find(*d.sensors[0], "redfish.node");
    EXPECT_TRUE(node->source.ends_with("/Power PowerControl[0].PowerConsumedWatts"));
    EXPECT_EQ(d.sensors[0]->channels().size(), 1U);
    EXPECT_DOUBLE_EQ(read_all(*d.sensors[0])[0].value, 344);
}

TEST_F(RedfishDiscover, ChassisPickedById) {
    serve();
    m_config.chassis = "1U";
    EXPECT_EQ(discover_configured().sensors.size(), 1U);
    m_config.chassis = "2U";
    const auto d = discover_configured();
    EXPECT_TRUE(d.sensors.empty());
    ASSERT_EQ(d.unreadable.size(), 1U);
    EXPECT_NE(d.unreadable[0].reason.find("no chassis with Id \"2U\" (the service has: 1U)"),
              std::string::npos);
    EXPECT_EQ(d.unreadable[0].hint, "set [sensors.redfish] chassis to one of: 1U");
}

TEST_F(RedfishDiscover, ConfiguredInterval) {
    serve();
    Config c;
    c.redfish = m_config;
    c.intervals.emplace("redfish", 3s);
    Host h;
    h.config = &c;
    const auto d = discover(h);
    ASSERT_EQ(d.sensors.size(), 1U);
    EXPECT_EQ(d.sensors[0]->min_interval(), 3s);
}

TEST_F(RedfishDiscover, PlainHttpSaysTheLoginIsUnencrypted) {
    serve({.tls = false});
    m_config.ca_file.reset();
    const auto d = discover(m_config, DiscoverOptions{});
    ASSERT_EQ(d.sensors.size(), 1U) << (d.unreadable.empty() ? "" : d.unreadable[0].reason);
    EXPECT_TRUE(test::any_note(d, "is plain HTTP: the login goes unencrypted"));
    EXPECT_DOUBLE_EQ(read_all(*d.sensors[0])[0].value, 374);
}

// A Sensor's ReadingTime that stands still with its value: stale, until it moves.
TEST_F(RedfishDiscover, StaleReadingIsRetry) {
    serve();
    fs::remove(m_server->root() / "Chassis/1U/EnvironmentMetrics/index.json");
    auto d = discover(m_config, DiscoverOptions{1s, 100ms});
    ASSERT_EQ(d.sensors.size(), 1U);
    auto& s = *d.sensors[0];
    EXPECT_EQ(read_all(s)[0].status, ReadStatus::ok);
    // 4 × SensingInterval (PT0.25S) = 1 s is longer than stale_after here.
    std::this_thread::sleep_for(1100ms);
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(read_all(s)[0].status, ReadStatus::retry);
    EXPECT_EQ(read_all(s)[0].status, ReadStatus::retry);
    const auto log = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(log.find("stale"), std::string::npos) << log;
    edit("Chassis/1U/Sensors/TotalPower",
         [](Json& j) { j["ReadingTime"] = "2019-08-13T04:14:34+06:00"; });
    const auto v = read_all(s);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_DOUBLE_EQ(v[0].value, 374);
}

} // namespace
} // namespace jp::sensors::redfish
