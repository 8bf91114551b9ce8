// SPDX-License-Identifier: BSD-3-Clause
// The SDR path against OpenIPMI's ipmi_sim with the Appendix B "SysPower"
// sensor (real-peers.md), checked against ipmitool's `sdr list full`.
#include "sdr_records.hpp"
#include "sensors/ipmi/sdr.hpp"
#include "sim_bmc.hpp"

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <initializer_list>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace jp::sensors::ipmi {
namespace {

using namespace std::chrono_literals;
using namespace test;

// ---------------------------------------------------------------- ipmi_sim

using test::SimBmc;

// ipmi_sim with the Appendix B sensor: "SysPower" (0x10) polls a watts file
// every second and reports value / 4 with M = 4.
class SdrSim : public ::testing::Test {
protected:
    void SetUp() override {
        if (test::find_sim().empty()) {
            GTEST_SKIP() << "ipmi_sim not installed (Debian package openipmi)";
        }
        if (test::plugin_path().empty() || !test::fs::exists(test::plugin_path())) {
            GTEST_SKIP() << "the ipmi_sim plug-in was not built (needs libopenipmi-dev)";
        }
        // SimBmc writes its emulator file when constructed, before its dir() is
        // known, so the watts file lives in a directory of its own.
        std::string dir = (test::fs::temp_directory_path() / "jp-sdr-XXXXXX").string();
        ASSERT_NE(::mkdtemp(dir.data()), nullptr);
        m_dir = dir;
        m_watts = m_dir / "watts";
        write_watts(412);
        const std::string lines =
            "sensor_add 0x20 0 0x10 0x0b 0x01 poll 1000 file \"" + m_watts.string() +
            "\" div=4\n"
            "main_sdr_add 0x20 " +
            std::string(k_sys_power_hex) +
            "\n"
            "sensor_set_event_support 0x20 0 0x10 enable scanning none 000000000000000 "
            "000000000000000 000000000000000 000000000000000\n";
        m_sim = std::make_unique<SimBmc>(test::Profile{}, lines);
        ASSERT_TRUE(m_sim->start()) << "ipmi_sim did not answer within 10 s";
        auto t = open_lan(m_sim->options("admin", "secret", 4));
        ASSERT_TRUE(t) << t.error().message();
        m_transport = std::move(*t);
    }
    void TearDown() override {
        m_transport.reset();
        m_sim.reset();
        std::error_code ec;
        test::fs::remove_all(m_dir, ec);
    }
    // Written whole and renamed, so the simulator never reads half a number.
    void write_watts(int w) const {
        const auto tmp = m_dir / "watts.tmp";
        std::ofstream(tmp) << w << "\n";
        test::fs::rename(tmp, m_watts);
    }
    [[nodiscard]] SdrPowerSensor sys_power() const {
        auto found = find_power_sensors(*m_transport);
        if (!found) {
            throw std::runtime_error(found.error().message());
        }
        auto node = pick_node_sensor(*found);
        if (!node) {
            throw std::runtime_error("no power sensor in ipmi_sim's repository");
        }
        return *node;
    }

    test::fs::path m_dir;
    test::fs::path m_watts;
    std::unique_ptr<SimBmc> m_sim;
    std::unique_ptr<Transport> m_transport;
};

TEST_F(SdrSim, FindsSysPowerAndFollowsTheFile) {
    auto found = find_power_sensors(*m_transport);
    ASSERT_TRUE(found) << found.error().message();
    ASSERT_EQ(found->size(), 1U);
    const SdrPowerSensor& s = found->front();
    EXPECT_EQ(s.name, "SysPower");
    EXPECT_EQ(s.number, 0x10);
    EXPECT_EQ(s.entity, 0x07);
    EXPECT_EQ(s.m, 4);
    ASSERT_EQ(pick_node_sensor(*found)->name, "SysPower");

    auto w = read_watts(*m_transport, s);
    ASSERT_TRUE(w) << w.error().message();
    EXPECT_NEAR(*w, 412.0, 4.0);

    // 603 W is not a multiple of the 4 W step: it reads within one step.
    write_watts(603);
    const auto written = std::chrono::steady_clock::now();
    double last = *w;
    while (std::chrono::steady_clock::now() - written < 2s) {
        auto r = read_watts(*m_transport, s);
        ASSERT_TRUE(r) << r.error().message();
        last = *r;
        if (std::abs(last - 603.0) < 4.0) {
            break;
        }
        std::this_thread::sleep_for(50ms);
    }
    EXPECT_NEAR(last, 603.0, 4.0) << "the reading did not follow the file within 2 s";
}

TEST_F(SdrSim, IpmitoolSdrListFullAgrees) {
    if (::access("/usr/bin/ipmitool", X_OK) != 0) {
        GTEST_SKIP() << "ipmitool not installed";
    }
    const SdrPowerSensor s = sys_power();
    auto w = read_watts(*m_transport, s);
    ASSERT_TRUE(w) << w.error().message();
    // A test peer may take its password on the command line; jouleprof never does.
    const std::string cmd = "/usr/bin/ipmitool -I lanplus -C 3 -H 127.0.0.1 -p " +
                            std::to_string(m_sim->port()) +
                            " -U admin -P secret sdr list full 2>&1";
    FILE* pipe = ::popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    std::array<char, 512> buf{};
    while (std::fgets(buf.data(), buf.size(), pipe) != nullptr) {
        out += buf.data();
    }
    EXPECT_EQ(::pclose(pipe), 0) << out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(SysPower\s*\|\s*([0-9.]+) Watts)"))) << out;
    EXPECT_DOUBLE_EQ(std::stod(m[1].str()), *w) << out;
    EXPECT_NEAR(*w, 412.0, 4.0);
}

} // namespace
} // namespace jp::sensors::ipmi
