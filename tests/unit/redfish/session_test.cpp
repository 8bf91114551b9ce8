// SPDX-License-Identifier: BSD-3-Clause
// Session auth against nginx emulating SessionService: POST .../Sessions answers
// 201 with X-Auth-Token and Location, every other resource wants the token, and
// DELETE of the Location ends it. nginx's access log shows what was sent.
#include "config/config.hpp"
#include "redfish_server.hpp"
#include "sensor_checks.hpp"
#include "sensors/redfish/redfish.hpp"
#include "served_test.hpp"

#include <gtest/gtest.h>

namespace jp::sensors::redfish {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::redfish::RedfishServer;

class RedfishSession : public test::redfish::ServedTest {
protected:
    void SetUp() override {
        ServedTest::SetUp();
        if (IsSkipped()) {
            return;
        }
        serve(test::redfish::ServerOptions{.basic = false, .session = true});
        m_config.auth = "session";
    }
};

TEST_F(RedfishSession, LogsInReadsAndDeletesTheSession) {
    {
        auto d = discover(m_config, DiscoverOptions{});
        ASSERT_EQ(d.sensors.size(), 1U) << (d.unreadable.empty() ? "" : d.unreadable[0].reason);
        const auto v = test::read_all(*d.sensors[0]);
        EXPECT_EQ(v[0].status, ReadStatus::ok);
        EXPECT_DOUBLE_EQ(v[0].value, 374);
        EXPECT_DOUBLE_EQ(v[1].value, 325675 * 3.6e6);
        EXPECT_EQ(m_server->access_log().find("DELETE"), std::string::npos);
    } // the sensor, and with it the session, ends here
    const auto log = m_server->access_log("DELETE /redfish/v1/SessionService/Sessions/jp1 204\n");
    EXPECT_TRUE(log.starts_with("POST /redfish/v1/SessionService/Sessions 201\n")) << log;
    EXPECT_NE(log.find("GET /redfish/v1/Chassis/1U/EnvironmentMetrics 200\n"), std::string::npos)
        << log;
    EXPECT_EQ(log.find(" 401\n"), std::string::npos) << log; // every GET carried the token
    EXPECT_TRUE(log.ends_with("DELETE /redfish/v1/SessionService/Sessions/jp1 204\n")) << log;
}

// The BMC drops the session (its idle timeout): the next poll logs in again.
TEST_F(RedfishSession, DroppedSessionLogsInAgain) {
    auto d = discover(m_config, DiscoverOptions{});
    ASSERT_EQ(d.sensors.size(), 1U) << (d.unreadable.empty() ? "" : d.unreadable[0].reason);
    EXPECT_EQ(test::read_all(*d.sensors[0])[0].status, ReadStatus::ok);
    // A BMC restarted: the old token is unknown to it.
    ASSERT_TRUE(m_server->restart({.basic = false, .session = true, .token = "jp-token-2"}));
    const auto before = m_server->access_log().size();
    const auto v = test::read_all(*d.sensors[0]);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_DOUBLE_EQ(v[0].value, 374);
    EXPECT_EQ(v[1].status, ReadStatus::ok);
    EXPECT_EQ(
        m_server->access_log("GET /redfish/v1/Chassis/1U/Sensors/TotalEnergy 200\n").substr(before),
        "GET /redfish/v1/Chassis/1U/EnvironmentMetrics 401\n"
        "DELETE /redfish/v1/SessionService/Sessions/jp1 204\n"
        "POST /redfish/v1/SessionService/Sessions 201\n"
        "GET /redfish/v1/Chassis/1U/EnvironmentMetrics 200\n"
        "GET /redfish/v1/Chassis/1U/Sensors/TotalEnergy 200\n");
}

TEST_F(RedfishSession, NothingFoundStillDeletesTheSession) {
    m_config.chassis = "nope";
    const auto d = discover(m_config, DiscoverOptions{});
    EXPECT_TRUE(d.sensors.empty());
    ASSERT_EQ(d.unreadable.size(), 1U);
    const auto log = m_server->access_log("DELETE /redfish/v1/SessionService/Sessions/jp1 204\n");
    EXPECT_TRUE(log.ends_with("DELETE /redfish/v1/SessionService/Sessions/jp1 204\n")) << log;
}

TEST_F(RedfishSession, BasicAuthIsRefusedWhereASessionIsWanted) {
    m_config.auth = "basic";
    const auto d = discover(m_config, DiscoverOptions{});
    ASSERT_EQ(d.unreadable.size(), 1U);
    EXPECT_NE(d.unreadable[0].reason.find("HTTP 401"), std::string::npos);
}

TEST_F(RedfishSession, SessionWithoutCredentials) {
    m_config.user.reset();
    m_config.password_file.reset();
    const auto d = discover(m_config, DiscoverOptions{});
    ASSERT_EQ(d.unreadable.size(), 1U);
    EXPECT_EQ(d.unreadable[0].reason,
              "[sensors.redfish] auth = \"session\": needs a user and password_file to log in");
    EXPECT_EQ(d.unreadable[0].hint, "set [sensors.redfish] user and password_file");
    EXPECT_EQ(m_server->access_log(), "");
}

} // namespace
} // namespace jp::sensors::redfish
