// SPDX-License-Identifier: BSD-3-Clause
// The ipmi backend as `jouleprof` discovers it, against a real BMC simulator
// read out-of-band: [sensors.ipmi] with host, user and a root-only password
// file; the XCC energy counter preferred, DCMI on request, and each failure
// one finding with what fixes it.
#include "config/config.hpp"
#include "sensors/ipmi/ipmi.hpp"
#include "sensors/ipmi/ipmi_sensor.hpp"
#include "sim_bmc.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <thread>

namespace jp::sensors::ipmi {
namespace {

using namespace test;

class SimSensor : public ::testing::Test {
protected:
    void SetUp() override {
        if (find_sim().empty() || plugin_path().empty() || !fs::exists(plugin_path())) {
            GTEST_SKIP() << "ipmi_sim or its plug-in is missing (openipmi, libopenipmi-dev)";
        }
        m_sim = std::make_unique<SimBmc>(m_profile);
        ASSERT_TRUE(m_sim->start()) << "ipmi_sim did not answer within 10 s";
    }
    Discovery discover_as(const std::string& user,
                          const std::string& privilege,
                          const std::string& source = "auto") {
        auto& c = m_config.ipmi.emplace();
        c.host = "127.0.0.1";
        c.port = m_sim->port();
        c.user = user;
        c.password_file = m_sim->password_file(); // holds "secret", mode 0600
        c.cipher_suite = 3;                       // ipmi_sim has no SHA-256
        c.privilege = privilege;
        c.source = source;
        c.timeout = 500ms;
        c.retries = 1;
        Host host;
        host.config = &m_config;
        return ipmi::discover(host);
    }
    Profile m_profile; // 250 W, then 347 W from 50 s; started 100 s ago
    std::unique_ptr<SimBmc> m_sim;
    Config m_config;
};

TEST_F(SimSensor, PrefersTheXccEnergyCounter) {
    auto d = discover_as("admin", "admin");
    ASSERT_EQ(d.sensors.size(), 1U) << (d.unreadable.empty() ? "" : d.unreadable[0].reason);
    auto& s = *d.sensors[0];
    const auto& ch = s.channels()[0];
    EXPECT_EQ(ch.quantity, Quantity::energy);
    EXPECT_NE(ch.source.find("ipmi:xcc out-of-band 127.0.0.1:"), std::string::npos) << ch.source;
    std::vector<Value> v(1);
    const double t0 = now_realtime();
    s.read(v);
    const double t1 = now_realtime();
    ASSERT_EQ(v[0].status, ReadStatus::ok);
    // The counter is the profile's integral at the BMC's moment of reading.
    EXPECT_GE(v[0].value, m_profile.energy_at(t0) - 0.5);
    EXPECT_LE(v[0].value, m_profile.energy_at(t1) + 0.5);
    std::this_thread::sleep_for(300ms);
    std::vector<Value> w(1);
    s.read(w);
    ASSERT_EQ(w[0].status, ReadStatus::ok);
    EXPECT_GT(w[0].value, v[0].value + 347 * 0.25); // 347 W for at least 300 ms
}

TEST_F(SimSensor, DcmiOnRequestWithTheBmcsAveragingWindow) {
    auto d = discover_as("admin", "admin", "dcmi");
    ASSERT_EQ(d.sensors.size(), 1U) << (d.unreadable.empty() ? "" : d.unreadable[0].reason);
    const auto& ch = d.sensors[0]->channels()[0];
    EXPECT_EQ(ch.quantity, Quantity::power);
    EXPECT_EQ(ch.averaging_ns, 1'000'000'000);
    std::vector<Value> v(1);
    d.sensors[0]->read(v);
    ASSERT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_EQ(v[0].value, 347);
}

TEST_F(SimSensor, UserPrivilegeRefusedSaysWhichPrivilegeToAskFor) {
    // ipmi_sim serves DCMI and OEM commands to administrators only.
    std::ofstream(m_sim->password_file(), std::ios::trunc) << "readpw\n";
    auto d = discover_as("reader", "user");
    ASSERT_TRUE(d.sensors.empty());
    ASSERT_EQ(d.unreadable.size(), 1U);
    const auto& f = d.unreadable[0];
    EXPECT_NE(f.reason.find("insufficient privilege level (0xD4)"), std::string::npos) << f.reason;
    EXPECT_NE(f.hint.find("privilege = \"operator\" or \"admin\""), std::string::npos) << f.hint;
}

TEST_F(SimSensor, WrongPasswordIsAFindingWithoutThePassword) {
    std::ofstream(m_sim->password_file(), std::ios::trunc) << "hunter2\n";
    auto d = discover_as("admin", "admin");
    ASSERT_TRUE(d.sensors.empty());
    ASSERT_EQ(d.unreadable.size(), 1U);
    EXPECT_NE(d.unreadable[0].reason.find("wrong password"), std::string::npos);
    EXPECT_EQ(d.unreadable[0].reason.find("hunter2"), std::string::npos);
    EXPECT_EQ(d.unreadable[0].hint.find("hunter2"), std::string::npos);
}

TEST_F(SimSensor, PasswordFileOthersCanReadIsRefused) {
    fs::permissions(m_sim->password_file(), fs::perms::others_read, fs::perm_options::add);
    auto d = discover_as("admin", "admin");
    ASSERT_TRUE(d.sensors.empty());
    ASSERT_EQ(d.unreadable.size(), 1U);
    EXPECT_NE(d.unreadable[0].reason.find(m_sim->password_file().string()), std::string::npos)
        << d.unreadable[0].reason;
    EXPECT_NE(d.unreadable[0].hint.find("chmod 600"), std::string::npos);
}

} // namespace
} // namespace jp::sensors::ipmi
