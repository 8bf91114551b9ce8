// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The fixture the Redfish suites share: skipped without nginx-light or openssl;
// serve() starts a RedfishServer and points m_config at it (user admin, a
// password file only its owner can read, the test CA 'A', a 2 s timeout).
#include "config/sources_config.hpp"
#include "redfish_server.hpp"

#include <chrono>
#include <gtest/gtest.h>
#include <memory>
#include <string>

namespace jp::test::redfish {

class ServedTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!have_tools()) {
            GTEST_SKIP() << "nginx-light or openssl not installed (scripts/setup.sh)";
        }
    }
    void serve(ServerOptions o = {}, const std::string& password = k_password) {
        m_server = std::make_unique<RedfishServer>(std::move(o));
        ASSERT_TRUE(m_server->start()) << m_server->error_log();
        m_config.url = m_server->url();
        m_config.user = "admin";
        m_config.password_file = m_server->password_file(password, fs::perms::owner_read);
        m_config.ca_file = RedfishServer::ca_file('A');
        m_config.timeout = std::chrono::seconds{2};
    }

    std::unique_ptr<RedfishServer> m_server;
    RedfishConfig m_config;
};

} // namespace jp::test::redfish
