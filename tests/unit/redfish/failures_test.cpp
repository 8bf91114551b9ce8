// SPDX-License-Identifier: BSD-3-Clause
// Everything that goes wrong gives one clear line with its fix, and no crash:
// a wrong password (401), a missing resource (404), bad JSON, a certificate from
// another CA, a server that never answers, a refused connection, a password
// file others can read. The password never appears in any of it.
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
using test::read_all;
using test::redfish::RedfishServer;
using test::redfish::ServerOptions;

constexpr const char* k_wrong = "wrong-Passw0rd!";

class RedfishFailure : public test::redfish::ServedTest {
protected:
    // Discovery that must fail with exactly one finding; its text, checked for secrets.
    Finding one_finding() {
        const auto d = discover(m_config, DiscoverOptions{});
        EXPECT_TRUE(d.sensors.empty());
        EXPECT_EQ(d.unreadable.size(), 1U);
        if (d.unreadable.empty()) {
            return Finding{"", "", ""};
        }
        const auto& f = d.unreadable[0];
        EXPECT_EQ(f.backend, "redfish");
        EXPECT_EQ(f.channel, "redfish.node");
        for (const auto& text : {f.what, f.reason, f.hint}) {
            EXPECT_EQ(text.find('\n'), std::string::npos) << text;
            EXPECT_EQ(text.find(test::redfish::k_password), std::string::npos) << text;
            EXPECT_EQ(text.find(k_wrong), std::string::npos) << text;
        }
        return f;
    }
    static bool has(const std::string& text, const std::string& part) {
        return text.find(part) != std::string::npos;
    }
};

TEST_F(RedfishFailure, WrongPassword) {
    serve({}, k_wrong);
    const auto f = one_finding();
    EXPECT_EQ(f.what, "Redfish service " + m_server->url());
    EXPECT_EQ(f.reason, "GET " + m_server->url() +
                            "/redfish/v1/: HTTP 401 Unauthorized: the BMC refused user \"admin\" "
                            "(wrong user or password?)");
    EXPECT_EQ(f.hint, "check [sensors.redfish] user and the password in password_file");
}

TEST_F(RedfishFailure, NoCredentials) {
    serve();
    m_config.user.reset();
    m_config.password_file.reset();
    const auto f = one_finding();
    EXPECT_TRUE(has(f.reason, "HTTP 401 Unauthorized: the service wants a login")) << f.reason;
    EXPECT_EQ(f.hint, "set [sensors.redfish] user and password_file");
}

TEST_F(RedfishFailure, PasswordFileOthersCanRead) {
    serve();
    m_config.password_file = m_server->password_file(
        test::redfish::k_password, fs::perms::owner_read | fs::perms::group_read |
                                       fs::perms::others_read | fs::perms::owner_write);
    const auto f = one_finding();
    EXPECT_TRUE(has(f.reason, "mode 0644 lets other users read it")) << f.reason;
    EXPECT_TRUE(has(f.hint, "chmod 0600")) << f.hint;
    EXPECT_EQ(m_server->access_log(), ""); // refused before anything is sent
}

TEST_F(RedfishFailure, UrlWithCredentials) {
    serve();
    m_config.url = "https://admin:" + std::string{k_wrong} + "@127.0.0.1:1";
    const auto f = one_finding();
    EXPECT_EQ(f.what, "Redfish service https://127.0.0.1:1");
    EXPECT_EQ(f.reason, "[sensors.redfish] url: carries a user or password");
}

TEST_F(RedfishFailure, NotFound) {
    serve();
    m_config.url = m_server->url() + "/bmc";
    auto f = one_finding();
    EXPECT_EQ(f.reason, "GET " + m_server->url() + "/bmc/redfish/v1/: HTTP 404 Not Found");
    EXPECT_TRUE(has(f.hint, "without /redfish/v1")) << f.hint;

    m_config.url = m_server->url();
    fs::remove(m_server->root() / "Chassis/1U/index.json");
    f = one_finding();
    EXPECT_EQ(f.what, "Redfish chassis 1U");
    EXPECT_EQ(f.reason, "GET " + m_server->url() + "/redfish/v1/Chassis/1U: HTTP 404 Not Found");
    EXPECT_TRUE(has(f.hint, "[sensors.redfish] chassis")) << f.hint;
}

TEST_F(RedfishFailure, NoReadingAnywhere) {
    serve();
    for (const char* r : {"EnvironmentMetrics", "Sensors", "Power"}) {
        fs::remove_all(m_server->root() / "Chassis/1U" / r);
    }
    const auto f = one_finding();
    EXPECT_TRUE(has(f.reason, "no power or energy reading: GET ")) << f.reason;
    EXPECT_TRUE(has(f.reason, "/Chassis/1U/Power: HTTP 404 Not Found")) << f.reason;
    EXPECT_TRUE(has(f.hint, "ipmi")) << f.hint;
}

TEST_F(RedfishFailure, BadJson) {
    serve();
    test::redfish::write_file(m_server->root() / "index.json", "<html>oops</html>\n");
    const auto f = one_finding();
    EXPECT_EQ(f.reason,
              m_server->url() + "/redfish/v1/: not JSON (it starts \"<html>oops</html>\\n\")");
    EXPECT_TRUE(has(f.hint, "not with Redfish JSON")) << f.hint;
}

TEST_F(RedfishFailure, CertificateFromAnotherCa) {
    serve({.ca = 'B'});
    const auto f = one_finding();
    EXPECT_TRUE(has(f.reason, "GET " + m_server->url() + "/redfish/v1/: TLS: ")) << f.reason;
    EXPECT_TRUE(has(f.reason, "certificate")) << f.reason;
    EXPECT_TRUE(has(f.hint, "ca_file")) << f.hint;
    EXPECT_EQ(m_server->access_log(), ""); // nothing (no credentials) went to that server
}

TEST_F(RedfishFailure, InsecureIsAnExplicitOptIn) {
    serve({.ca = 'B'});
    m_config.ca_file.reset();
    m_config.insecure = true;
    ::testing::internal::CaptureStderr();
    const auto d = discover(m_config, DiscoverOptions{});
    const auto log = ::testing::internal::GetCapturedStderr();
    ASSERT_EQ(d.sensors.size(), 1U);
    EXPECT_TRUE(test::any_note(d, "is not verified (insecure = true)"));
    EXPECT_TRUE(has(log, "is not verified (insecure = true)")) << log;
    for (const auto& c : d.sensors[0]->channels()) {
        EXPECT_TRUE(c.source.ends_with(" (TLS not verified: insecure = true)")) << c.source;
    }
    EXPECT_DOUBLE_EQ(read_all(*d.sensors[0])[0].value, 374);
}

TEST_F(RedfishFailure, ServerThatNeverAnswers) {
    test::redfish::SilentServer silent;
    m_config.url = silent.url();
    m_config.timeout = 300ms;
    const auto t0 = std::chrono::steady_clock::now();
    const auto f = one_finding();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
    EXPECT_EQ(f.reason, "GET " + silent.url() + "/redfish/v1/: no answer within 300 ms");
    EXPECT_TRUE(has(f.hint, "timeout")) << f.hint;
}

TEST_F(RedfishFailure, ConnectionRefused) {
    m_config.url = "https://127.0.0.1:" + std::to_string(test::redfish::free_port());
    const auto f = one_finding();
    EXPECT_EQ(f.reason, "GET " + m_config.url + "/redfish/v1/: cannot connect: Connection refused");
    EXPECT_TRUE(has(f.hint, "nothing accepts connections")) << f.hint;
}

// At read time a failed poll is retry, logged once until the reading comes back.
TEST_F(RedfishFailure, FailedPollsAreRetryAndLoggedOnce) {
    serve();
    auto d = discover(m_config, DiscoverOptions{});
    ASSERT_EQ(d.sensors.size(), 1U);
    auto& s = *d.sensors[0];
    const auto good =
        test::redfish::read_file(m_server->root() / "Chassis/1U/EnvironmentMetrics/index.json");
    test::redfish::write_file(m_server->root() / "Chassis/1U/EnvironmentMetrics/index.json", "{");
    ::testing::internal::CaptureStderr();
    for (int i = 0; i < 3; ++i) {
        const auto v = read_all(s);
        EXPECT_EQ(v[0].status, ReadStatus::retry);
        EXPECT_EQ(v[1].status, ReadStatus::ok); // TotalEnergy still reads
    }
    auto log = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(std::ranges::count(log, '\n'), 1) << log;
    EXPECT_TRUE(has(log, "EnvironmentMetrics PowerWatts: not JSON")) << log;

    test::redfish::write_file(m_server->root() / "Chassis/1U/EnvironmentMetrics/index.json", good);
    EXPECT_EQ(read_all(s)[0].status, ReadStatus::ok);

    m_server->stop(); // the BMC goes away: retry, one line again
    ::testing::internal::CaptureStderr();
    for (int i = 0; i < 3; ++i) {
        const auto v = read_all(s);
        EXPECT_EQ(v[0].status, ReadStatus::retry);
        EXPECT_EQ(v[1].status, ReadStatus::retry);
    }
    log = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(std::ranges::count(log, '\n'), 1) << log;
    EXPECT_TRUE(has(log, "cannot connect")) << log;
    EXPECT_FALSE(has(log, test::redfish::k_password));
}

} // namespace
} // namespace jp::sensors::redfish
