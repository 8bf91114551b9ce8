// SPDX-License-Identifier: BSD-3-Clause
// [sensors.ipmi], [sensors.redfish], [sensors.slurm]: what is accepted, the
// defaults, and the one-line errors for what cannot work.
#include "config/config.hpp"

#include <gtest/gtest.h>

namespace jp {
namespace {

TEST(SourcesConfig, OutOfBandIpmiRedfishAndSlurmAreParsed) {
    auto c = parse_config(R"(
[sensors.ipmi]
host = "10.1.2.3"
port = 9623
user = "energy"
password_file = "/etc/jouleprof/bmc.pw"
cipher_suite = 3
privilege = "admin"
timeout = "500ms"
retries = 1
source = "dcmi"
interval = "2s"
[sensors.redfish]
url = "https://bmc1.example/"
user = "reader"
password_file = "/etc/jouleprof/redfish.pw"
ca_file = "/etc/jouleprof/bmc-ca.pem"
chassis = "1U"
auth = "session"
[sensors.slurm]
node = "gpu17"
)",
                          "t.toml");
    ASSERT_TRUE(c) << c.error().message();
    ASSERT_TRUE(c->ipmi);
    EXPECT_EQ(*c->ipmi->host, "10.1.2.3");
    EXPECT_EQ(c->ipmi->port, 9623);
    EXPECT_EQ(c->ipmi->cipher_suite, 3);
    EXPECT_EQ(c->ipmi->privilege, "admin");
    EXPECT_EQ(c->ipmi->timeout.count(), 500'000'000);
    EXPECT_EQ(c->ipmi->retries, 1);
    EXPECT_EQ(c->ipmi->source, "dcmi");
    EXPECT_EQ(c->intervals.at("ipmi").count(), 2'000'000'000);
    ASSERT_TRUE(c->redfish);
    EXPECT_EQ(c->redfish->url, "https://bmc1.example") << "the trailing slash is dropped";
    EXPECT_EQ(c->redfish->auth, "session");
    EXPECT_FALSE(c->redfish->insecure);
    EXPECT_EQ(c->redfish->timeout.count(), 5'000'000'000) << "5 s by default";
    ASSERT_TRUE(c->slurm);
    EXPECT_EQ(*c->slurm->node, "gpu17");
    EXPECT_EQ(c->slurm->scontrol, "scontrol");
}

TEST(SourcesConfig, DefaultsAndAbsentTables) {
    auto c = parse_config("[sensors.ipmi]\n", "t.toml");
    ASSERT_TRUE(c) << c.error().message();
    ASSERT_TRUE(c->ipmi) << "an empty table still asks for in-band IPMI";
    EXPECT_FALSE(c->ipmi->host);
    EXPECT_EQ(c->ipmi->cipher_suite, 17);
    EXPECT_EQ(c->ipmi->port, 623);
    EXPECT_EQ(c->ipmi->source, "auto");
    EXPECT_FALSE(c->redfish);
    EXPECT_FALSE(c->slurm);
}

TEST(SourcesConfig, WhatCannotWorkIsOneLineNamingTheKey) {
    const std::pair<const char*, const char*> bad[] = {
        {"[sensors.ipmi]\ncipher_suite = 1\n", "cipher_suite: must be 3"},
        {"[sensors.ipmi]\nhost = \"bmc\"\n", "needs user and password_file"},
        {"[sensors.ipmi]\nhost = \"bmc\"\nuser = \"u\"\npassword = \"x\"\n",
         "password: unknown key"},
        {"[sensors.ipmi]\nuser = \"u\"\n", "set host as well"},
        {"[sensors.ipmi]\nport = 70000\n", "port: must be a whole number from 1 to 65535"},
        {"[sensors.ipmi]\nprivilege = \"root\"\n", "must be one of user, operator, admin"},
        {"[sensors.ipmi]\nsource = \"acpi\"\n", "source: must be one of"},
        {"[sensors.ipmi]\ndevice = \"/dev/ipmi0\"\nhost = \"b\"\nuser = \"u\"\n"
         "password_file = \"/p\"\n",
         "set one"},
        {"[sensors.ipmi]\ntimeout = \"1ms\"\n", "timeout: must be at least 10 ms"},
        {"[sensors.redfish]\nuser = \"u\"\n", "url: is required"},
        {"[sensors.redfish]\nurl = \"bmc1\"\n", "must start with https://"},
        {"[sensors.redfish]\nurl = \"https://b\"\nuser = \"u\"\n", "go together"},
        {"[sensors.redfish]\nurl = \"https://b\"\nauth = \"digest\"\n", "must be one of basic"},
        {"[sensors.redfish]\nurl = \"https://b\"\ninsecure = \"yes\"\n", "must be true or false"},
        {"[sensors.redfish]\nurl = \"\"\n", "url: must not be empty"},
        {"[sensors.slurm]\nnodes = \"a\"\n", "nodes: unknown key"},
    };
    for (const auto& [text, expected] : bad) {
        auto c = parse_config(text, "s.toml");
        ASSERT_FALSE(c) << text;
        const auto m = c.error().message();
        EXPECT_NE(m.find(expected), std::string::npos) << text << " -> " << m;
        EXPECT_NE(m.find("s.toml:"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
}

} // namespace
} // namespace jp
