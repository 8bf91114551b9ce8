// SPDX-License-Identifier: BSD-3-Clause
// The out-of-band client against a real BMC simulator: OpenIPMI's ipmi_sim on
// 127.0.0.1 with the project's plug-in (tests/ipmi_sim/) answering DCMI and the
// XCC energy command from a scripted power profile. Also: ipmitool reads the
// same watts; a wrong password, a dead port, a USER-level account and a peer
// answering garbage each give one clear line. ipmi_sim 2.0.33 has no SHA-256,
// so cipher suite 17 is covered by known answers only (rmcp_crypto_test.cpp).
#include "sensors/ipmi/lan.hpp"
#include "sim_bmc.hpp"
#include "sys/secret_file.hpp"

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <regex>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace jp::sensors::ipmi {
namespace {

using namespace std::chrono_literals;
using namespace test;

class LanSim : public ::testing::Test {
protected:
    void SetUp() override {
        if (find_sim().empty()) {
            GTEST_SKIP() << "ipmi_sim not installed (Debian package openipmi)";
        }
        if (plugin_path().empty() || !fs::exists(plugin_path())) {
            GTEST_SKIP() << "the ipmi_sim plug-in was not built (needs libopenipmi-dev)";
        }
        m_sim = std::make_unique<SimBmc>(m_profile);
        ASSERT_TRUE(m_sim->start()) << "ipmi_sim did not answer within 10 s";
    }
    Profile m_profile;
    std::unique_ptr<SimBmc> m_sim;
};

const Request k_dcmi_power{0x2C, 0x02, {0xDC, 0x01, 0x00, 0x00}};
const Request k_xcc_energy{0x3A, 0x32, {0x04, 0x02, 0x00, 0x00, 0x00}};

unsigned le16(const std::vector<std::uint8_t>& d, std::size_t at) {
    return static_cast<unsigned>(d.at(at)) | static_cast<unsigned>(d.at(at + 1)) << 8U;
}
std::uint32_t le32(const std::vector<std::uint8_t>& d, std::size_t at) {
    return le16(d, at) | static_cast<std::uint32_t>(le16(d, at + 2)) << 16U;
}

bool one_line(const std::string& s) {
    return !s.empty() && s.find('\n') == std::string::npos;
}

TEST_F(LanSim, ReadsDcmiWattsAndXccEnergyOnOneSession) {
    auto password = sys::read_secret_file(m_sim->password_file()); // 0600, as in production
    ASSERT_TRUE(password) << password.error().message();
    auto t = open_lan(m_sim->options("admin", *password, 4));
    ASSERT_TRUE(t) << t.error().message();
    EXPECT_NE((*t)->describe().find("cipher suite 3"), std::string::npos);
    for (int i = 0; i < 5; ++i) {
        auto r = (*t)->call(k_dcmi_power);
        ASSERT_TRUE(r) << r.error().message();
        ASSERT_EQ(r->completion, 0x00);
        ASSERT_GE(r->data.size(), 18U);
        EXPECT_EQ(r->data[0], 0xDC);
        EXPECT_EQ(le16(r->data, 1), 347U); // current
        EXPECT_EQ(le16(r->data, 3), 250U); // minimum
        EXPECT_EQ(le16(r->data, 5), 347U); // maximum
        EXPECT_EQ(le32(r->data, 13), 1000U);
        EXPECT_EQ(r->data[17] & 0x40, 0x40);

        auto e = (*t)->call(k_xcc_energy);
        ASSERT_TRUE(e) << e.error().message();
        ASSERT_EQ(e->completion, 0x00);
        ASSERT_EQ(e->data.size(), 14U); // the SD650 form: 16 bytes with cmd and completion
        const double joules = le32(e->data, 2) + le16(e->data, 6) / 1000.0;
        const double stamp = le32(e->data, 8) + le16(e->data, 12) / 1000.0;
        // The stamp has millisecond resolution: 347 W x 1 ms, plus rounding.
        EXPECT_NEAR(joules, m_profile.energy_at(stamp), 0.5);
    }
    EXPECT_EQ(lan_sessions_opened(**t), 1); // the session was kept across reads
}

TEST_F(LanSim, IpmitoolReadsTheSameWatts) {
    if (::access("/usr/bin/ipmitool", X_OK) != 0) {
        GTEST_SKIP() << "ipmitool not installed";
    }
    auto t = open_lan(m_sim->options("admin", "secret", 4));
    ASSERT_TRUE(t) << t.error().message();
    auto r = (*t)->call(k_dcmi_power);
    ASSERT_TRUE(r && r->completion == 0);
    // A test peer may take its password on the command line; jouleprof never does.
    const std::string cmd = "/usr/bin/ipmitool -I lanplus -C 3 -H 127.0.0.1 -p " +
                            std::to_string(m_sim->port()) +
                            " -U admin -P secret dcmi power reading 2>&1";
    FILE* pipe = ::popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    char buf[512];
    while (std::fgets(buf, sizeof buf, pipe) != nullptr) {
        out += buf;
    }
    EXPECT_EQ(::pclose(pipe), 0) << out;
    std::smatch m;
    ASSERT_TRUE(
        std::regex_search(out, m, std::regex(R"(Instantaneous power reading:\s+(\d+) Watts)")))
        << out;
    EXPECT_EQ(std::stoul(m[1].str()), le16(r->data, 1));
}

TEST_F(LanSim, ClosesItsSessionWhenDestroyed) {
    // ipmi_sim holds at most 63 sessions: 70 in a row open only if each is closed.
    for (int i = 0; i < 70; ++i) {
        auto t = open_lan(m_sim->options("admin", "secret", 4));
        ASSERT_TRUE(t) << "session " << i << ": " << t.error().message();
    }
}

TEST_F(LanSim, ReopensTheSessionWhenTheBmcForgetsIt) {
    LanOptions o = m_sim->options("admin", "secret", 4);
    o.timeout = 200ms;
    auto t = open_lan(o);
    ASSERT_TRUE(t) << t.error().message();
    ASSERT_TRUE((*t)->call(k_dcmi_power));
    m_sim->stop(); // a BMC reset: the new one knows no session
    ASSERT_TRUE(m_sim->start());
    auto r = (*t)->call(k_dcmi_power);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(r->completion, 0x00);
    EXPECT_EQ(lan_sessions_opened(**t), 2);
}

TEST_F(LanSim, WrongPasswordIsOneClearLine) {
    auto t = open_lan(m_sim->options("admin", "not-the-password", 4));
    ASSERT_FALSE(t);
    const std::string msg = t.error().message();
    EXPECT_TRUE(one_line(msg)) << msg;
    EXPECT_NE(msg.find("wrong password for user 'admin'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("127.0.0.1:" + std::to_string(m_sim->port())), std::string::npos) << msg;
    EXPECT_EQ(msg.find("not-the-password"), std::string::npos) << msg;
    EXPECT_EQ(t.error().hint.find("not-the-password"), std::string::npos);
}

TEST_F(LanSim, UnknownUserIsOneClearLine) {
    auto t = open_lan(m_sim->options("nobody", "secret", 4));
    ASSERT_FALSE(t);
    EXPECT_NE(t.error().message().find("no user 'nobody'"), std::string::npos)
        << t.error().message();
}

TEST_F(LanSim, UserLevelAccountGetsInsufficientPrivilege) {
    // ipmi_sim serves group extensions (DCMI) to administrators only; a real BMC
    // allows USER for Get Power Reading. The reply is a completion code, which
    // the DCMI layer turns into its line; the session itself opens.
    auto t = open_lan(m_sim->options("reader", "readpw", 2));
    ASSERT_TRUE(t) << t.error().message();
    auto r = (*t)->call(k_dcmi_power);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(r->completion, 0xD4); // insufficient privilege level
}

TEST(LanPeer, DeadPortIsOneClearLineWithinTheTimeout) {
    LanOptions o;
    o.host = "127.0.0.1";
    o.port = free_udp_port(); // nothing listens there
    o.user = "admin";
    o.password = "secret";
    o.cipher_suite = 3;
    o.timeout = 200ms;
    o.retries = 1;
    const auto begin = std::chrono::steady_clock::now();
    auto t = open_lan(o);
    const auto took = std::chrono::steady_clock::now() - begin;
    ASSERT_FALSE(t);
    const std::string msg = t.error().message();
    EXPECT_TRUE(one_line(msg)) << msg;
    EXPECT_NE(msg.find("127.0.0.1:" + std::to_string(o.port)), std::string::npos) << msg;
    EXPECT_NE(msg.find("no reply to Open Session Request after 2 tries"), std::string::npos) << msg;
    EXPECT_LT(took, 10 * o.timeout * (o.retries + 1)); // a hang guard, not a performance test
}

// A UDP peer that answers every datagram with bytes that are not RMCP+.
class GarbagePeer {
public:
    GarbagePeer() : m_fd(::socket(AF_INET, SOCK_DGRAM, 0)) {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        ::bind(m_fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&a), &len);
        m_port = ntohs(a.sin_port);
        m_thread = std::thread([this] { serve(); });
    }
    ~GarbagePeer() {
        m_stop = true;
        m_thread.join();
        ::close(m_fd);
    }
    GarbagePeer(const GarbagePeer&) = delete;
    GarbagePeer& operator=(const GarbagePeer&) = delete;
    [[nodiscard]] int port() const { return m_port; }

private:
    void serve() {
        while (!m_stop) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0) {
                continue;
            }
            std::uint8_t buf[512];
            sockaddr_in from{};
            socklen_t len = sizeof from;
            if (::recvfrom(m_fd, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &len) >
                0) {
                const char junk[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
                ::sendto(m_fd, junk, sizeof junk - 1, 0, reinterpret_cast<sockaddr*>(&from), len);
            }
        }
    }
    int m_fd;
    int m_port = 0;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

TEST(LanPeer, GarbledReplyIsOneClearLine) {
    GarbagePeer peer;
    LanOptions o;
    o.host = "127.0.0.1";
    o.port = peer.port();
    o.user = "admin";
    o.password = "secret";
    o.cipher_suite = 17;
    o.timeout = 500ms;
    auto t = open_lan(o);
    ASSERT_FALSE(t);
    const std::string msg = t.error().message();
    EXPECT_TRUE(one_line(msg)) << msg;
    EXPECT_NE(msg.find("garbled reply to Open Session Request"), std::string::npos) << msg;
    EXPECT_NE(msg.find("127.0.0.1:" + std::to_string(o.port)), std::string::npos) << msg;
}

TEST(LanPeer, BadOptionsAreRefusedBeforeAnythingIsSent) {
    LanOptions o;
    o.host = "127.0.0.1";
    o.user = "admin";
    o.cipher_suite = 2;
    EXPECT_NE(open_lan(o).error().message().find("cipher suite 2"), std::string::npos);
    o.cipher_suite = 17;
    o.password = std::string(21, 'x');
    EXPECT_FALSE(open_lan(o));
    o.password = "x";
    o.privilege = 1;
    EXPECT_FALSE(open_lan(o));
}

} // namespace
} // namespace jp::sensors::ipmi
