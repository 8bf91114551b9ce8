// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/settings.hpp"
#include "fake_sysfs.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

namespace jp::daemon {
namespace {

TEST(DaemonSettings, DefaultsAreSecureAndDocumented) {
    auto c = parse_daemon_config("", "empty.toml");
    ASSERT_TRUE(c) << c.error().message();
    EXPECT_EQ(c->daemon.socket, "/run/jouleprof/jouleprofd.sock");
    EXPECT_EQ(c->daemon.interval, std::chrono::milliseconds{100});
    EXPECT_FALSE(c->daemon.prometheus_listen) << "/metrics is off by default";
    EXPECT_FALSE(c->daemon.prometheus_per_job) << "who runs what is not shown by default";
    EXPECT_EQ(c->daemon.prometheus_max_per_peer, 2) << "one user holds at most 2 of 8 slots";
    EXPECT_TRUE(c->access.full_resolution_groups.empty());
    EXPECT_TRUE(c->access.others_allowed);
    EXPECT_EQ(c->access.floor, std::chrono::seconds{1});
    EXPECT_EQ(c->access.edge_reads_burst, 16);
    EXPECT_FALSE(c->daemon.state_dir) << "systemd's $STATE_DIRECTORY, else nowhere";
}

TEST(DaemonSettings, ParsesEveryTableTogetherWithJouleprofsOwn) {
    auto c = parse_daemon_config(R"(
sysfs_root = "/srv/fake"
[daemon]
socket = "/run/x/j.sock"
interval = "50ms"
history = "1h"
max_clients = 100
max_sessions_per_user = 3
client_timeout = "2s"
state_dir = "/var/lib/jp"
idle_quiet_busy = 25
[access]
full_resolution_groups = ["energy", "hpc"]
others = "deny"
floor = "2s"
jitter = "500ms"
edge_reads_burst = 4
edge_reads_per_minute = 1.5
unrestricted_backends = ["nvml"]
[prometheus]
listen = "[::1]:9940"
max_connections = 2
max_connections_per_peer = 1
per_job = true
per_job_max = 50
per_job_keep = "1h"
[node]
rated_watts = 1000
[sensors.nvml]
interval = "20ms"
)",
                                 "full.toml");
    ASSERT_TRUE(c) << c.error().message();
    EXPECT_EQ(c->daemon.socket, "/run/x/j.sock");
    EXPECT_EQ(c->daemon.interval, std::chrono::milliseconds{50});
    EXPECT_EQ(c->daemon.history, std::chrono::hours{1});
    EXPECT_EQ(c->daemon.max_sessions_per_user, 3);
    EXPECT_EQ(c->daemon.state_dir, std::filesystem::path{"/var/lib/jp"});
    EXPECT_EQ(c->daemon.idle.quiet_busy_percent, 25);
    const auto off = parse_daemon_config("[daemon]\nstate_dir = \"\"\n", "off.toml");
    ASSERT_TRUE(off);
    EXPECT_EQ(off->daemon.state_dir, std::filesystem::path{}) << "\"\": kept nowhere";
    EXPECT_EQ(c->access.full_resolution_groups, (std::vector<std::string>{"energy", "hpc"}));
    EXPECT_FALSE(c->access.others_allowed);
    EXPECT_EQ(c->access.jitter, std::chrono::milliseconds{500});
    EXPECT_DOUBLE_EQ(c->access.edge_reads_per_minute, 1.5);
    EXPECT_EQ(c->access.unrestricted_backends, std::vector<std::string>{"nvml"});
    EXPECT_EQ(*c->daemon.prometheus_listen, "[::1]:9940");
    EXPECT_TRUE(c->daemon.prometheus_per_job);
    EXPECT_EQ(c->daemon.prometheus_per_job_max, 50);
    EXPECT_EQ(c->daemon.prometheus_max_connections, 2);
    EXPECT_EQ(c->daemon.prometheus_max_per_peer, 1);
    EXPECT_EQ(c->daemon.prometheus_per_job_keep, std::chrono::hours{1});
    EXPECT_EQ(*c->sensors.node.rated_watts, 1000);
    EXPECT_EQ(c->sensors.intervals.at("nvml"), std::chrono::milliseconds{20});
    EXPECT_EQ(*c->sensors.sysfs_root, "/srv/fake");
}

TEST(DaemonSettings, EachMistakeNamesFileLineTableAndKey) {
    const std::pair<const char*, const char*> bad[] = {
        {"[daemon]\nsockett = \"/x\"\n", "bad.toml:2: [daemon] sockett: unknown key"},
        {"[daemon]\nsocket = \"relative.sock\"\n", "[daemon] socket: must be an absolute path"},
        {"[daemon]\nstate_dir = \"var/lib\"\n", "[daemon] state_dir: must be an absolute path"},
        {"[daemon]\nstate_dir = 1\n", "[daemon] state_dir: must be a string"},
        {"[daemon]\ninterval = \"0ms\"\n", "[daemon] interval: must be at least"},
        {"[daemon]\nmax_clients = 0\n", "[daemon] max_clients"},
        {"[daemon]\nidle_period = \"2h\"\n", "[daemon] idle_period: idle_window must hold"},
        {"[daemon]\nidle_window = \"10m\"\n", "[daemon] idle_window: idle_window must hold"},
        {"[daemon]\nidle_percentile = 90\n", "[daemon] idle_percentile"},
        {"[daemon]\nidle_quiet_busy = 101\n", "[daemon] idle_quiet_busy"},
        {"[daemon]\nidle_period = \"100ms\"\nidle_window = \"720h\"\n",
         "[daemon] idle_window: idle_window must hold idle_period (at most 100000"},
        {"[daemon]\nidle_period = \"10ms\"\n", "[daemon] idle_period: must be at least"},
        {"[access]\nothers = \"everyone\"\n", "[access] others"},
        {"[access]\nfull_resolution_groups = \"energy\"\n", "must be an array of strings"},
        {"[access]\nfull_resolution_groups = [1]\n", "must be an array of strings"},
        {"[access]\nedge_reads_per_minute = inf\n", "must be a finite number"},
        {"[access]\nedge_reads_burst = -1\n", "edge_reads_burst"},
        {"[prometheus]\nlisten = true\n", "[prometheus] listen: must be a string"},
        {"[prometheus]\nper_job = true\n", "[prometheus] per_job: needs listen"},
        {"[prometheus]\nlisten = \"127.0.0.1:1\"\nper_job = 1\n", "[prometheus] per_job: must be"},
        {"[prometheus]\nlisten = \"127.0.0.1:1\"\nper_job_max = 0\n", "[prometheus] per_job_max"},
        {"[prometheus]\nlisten = \"127.0.0.1:1\"\nmax_connections_per_peer = 0\n",
         "[prometheus] max_connections_per_peer"},
        {"[prometheus]\nlisten = \"127.0.0.1:1\"\nper_job_keep = \"soon\"\n",
         "[prometheus] per_job_keep"},
        {"access = 3\n", "must be a table"},
        {"[daemons]\n", "top level daemons: unknown key"},
        {"[node]\nrated_watts = nan\n", "[node] rated_watts: must be a finite number"},
        {"[access\n", "bad.toml"},
    };
    for (const auto& [text, expect] : bad) {
        auto c = parse_daemon_config(text, "bad.toml");
        ASSERT_FALSE(c) << text;
        const auto m = c.error().message();
        EXPECT_NE(m.find(expect), std::string::npos) << text << " -> " << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
    }
}

TEST(DaemonSettings, GroupsAreResolvedAndUnknownOnesRefused) {
    AccessRules rules;
    rules.full_resolution_groups = {"root"};
    ASSERT_TRUE(resolve_groups(rules, "x.toml"));
    EXPECT_EQ(rules.full_resolution_gids, std::vector<gid_t>{0});
    rules.full_resolution_groups = {"no-such-group-jp"};
    auto r = resolve_groups(rules, "x.toml");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("no-such-group-jp"), std::string::npos);
}

TEST(DaemonSettings, AFileOthersCouldChangeIsRefused) {
    test::FakeSysfs fs;
    fs.add({"/ok.toml", "[access]\nfloor = \"2s\"\n", 0644});
    auto ok = load_daemon_config(fs.path("/ok.toml"));
    ASSERT_TRUE(ok) << ok.error().message();
    EXPECT_EQ(ok->access.floor, std::chrono::seconds{2});
    EXPECT_EQ(ok->source, fs.path("/ok.toml"));

    fs.add({"/world.toml", "", 0666});
    auto world = load_daemon_config(fs.path("/world.toml"));
    ASSERT_FALSE(world);
    EXPECT_NE(world.error().message().find("writable by other users"), std::string::npos);
    fs.add({"/group.toml", "", 0664});
    EXPECT_FALSE(load_daemon_config(fs.path("/group.toml")));

    if (::geteuid() == 0) { // only root can give a file away
        fs.add({"/theirs.toml", "", 0644});
        ASSERT_EQ(::chown(fs.path("/theirs.toml").c_str(), 65534, 65534), 0);
        auto theirs = load_daemon_config(fs.path("/theirs.toml"));
        ASSERT_FALSE(theirs);
        EXPECT_NE(theirs.error().message().find("owned by uid 65534"), std::string::npos);
    }
    fs.add({"/open/in.toml", "", 0644});
    fs.chmod("/open", 0777);
    auto open_dir = load_daemon_config(fs.path("/open/in.toml"));
    ASSERT_FALSE(open_dir);
    EXPECT_NE(open_dir.error().message().find("writable by other users (mode 0777)"),
              std::string::npos)
        << open_dir.error().message();
    fs.chmod("/open", 01777); // sticky, like /tmp: others cannot replace our file
    EXPECT_TRUE(load_daemon_config(fs.path("/open/in.toml")));
    EXPECT_FALSE(load_daemon_config(fs.path("/missing.toml")));
}

// A SIGHUP applies [access] alone: the log names every other key whose value changed,
// and nothing for a file only reformatted.
TEST(DaemonSettings, AReloadNamesTheKeysThatWaitForARestart) {
    const std::string running = R"(sysfs_root = "/a"
[access]
others = "floor"
[daemon]
idle_period = "60s"
history = "10m"
[sensors.rapl]
interval = "10ms"
)";
    EXPECT_TRUE(changed_until_restart(running, running).empty());
    EXPECT_TRUE(changed_until_restart(running, R"(# the same, reformatted and reordered
sysfs_root   =   "/a"
[sensors.rapl]
interval   = "10ms"
[daemon]
history = "10m"
idle_period = "60s"
[access]
others = "deny"   # applied by the reload: not named
)")
                    .empty());
    EXPECT_TRUE(
        changed_until_restart("[daemon]\nmax_clients = 16\n", "[daemon]\nmax_clients = 0x10\n")
            .empty())
        << "the same value, written otherwise";
    EXPECT_EQ(changed_until_restart("", "[sensors.nvml]\n"),
              (std::vector<std::string>{"[sensors.nvml]"}))
        << "a backend turned on by its empty table";
    const auto changed = changed_until_restart(running, R"(sysfs_root = "/b"
[daemon]
idle_period = "2m"
[sensors.rapl]
interval = "10ms"
[sensors.nvml]
interval = "20ms"
[prometheus]
listen = "127.0.0.1:9940"
)");
    EXPECT_EQ(changed, (std::vector<std::string>{"[daemon] history", "[daemon] idle_period",
                                                 "[prometheus] listen", "[sensors.nvml] interval",
                                                 "sysfs_root"}));
}

} // namespace
} // namespace jp::daemon
