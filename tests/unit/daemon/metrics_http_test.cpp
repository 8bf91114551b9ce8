// SPDX-License-Identifier: BSD-3-Clause
#include "core/clock.hpp"
#include "daemon/http.hpp"
#include "daemon/metrics.hpp"
#include "daemon_world.hpp"

#include <gtest/gtest.h>
#include <thread>

namespace jp::daemon {
namespace {

TEST(Metrics, EveryFamilyHasHelpAndTypeAndBaseUnits) {
    DaemonConfig c;
    c.daemon.interval = std::chrono::milliseconds{10};
    c.access.floor = std::chrono::milliseconds{20};
    c.access.jitter = Nanos{0};
    test::World w{c};
    std::uint64_t uj = 1'000'000;
    for (int i = 0; i < 20; ++i) {
        uj += 1'500'000;
        w.set_energy_uj(uj);
        std::this_thread::sleep_for(std::chrono::milliseconds{10});
        w.engine->tick(mono_ns());
    }
    const auto text = metrics_text(*w.state, mono_ns());
    for (const char* family :
         {"jouleprof_energy_joules_total", "jouleprof_power_watts",
          "jouleprof_node_energy_joules_total", "jouleprof_sensor_up",
          "jouleprof_sensor_errors_total", "jouleprof_daemon_cpu_seconds_total",
          "jouleprof_daemon_resident_memory_bytes", "jouleprof_build_info"}) {
        EXPECT_NE(text.find(fmt::format("# HELP {} ", family)), std::string::npos) << family;
        EXPECT_NE(text.find(fmt::format("# TYPE {} ", family)), std::string::npos) << family;
    }
    // Anonymous scrapes learn nothing of others' activity: no client or session counts.
    EXPECT_EQ(text.find("jouleprof_daemon_sessions"), std::string::npos);
    EXPECT_EQ(text.find("jouleprof_daemon_clients"), std::string::npos);
    EXPECT_EQ(text.find("jouleprof_utilization_ratio"), std::string::npos)
        << "no GPUs: the family is left out, not printed empty";
    EXPECT_NE(
        text.find("jouleprof_energy_joules_total{channel=\"cpu0.package\",domain=\"cpu_package\","
                  "device=\"rapl:package:0\",source=\"powercap\",provenance=\"measured\","
                  "counted=\"true\"}"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("jouleprof_node_energy_joules_total{basis=\"sum of parts\","
                        "provenance=\"derived\"}"),
              std::string::npos)
        << "the core is inside the package: only counted parts add up\n"
        << text;
}

TEST(Http, ParsesOneGetAndRefusesTheRest) {
    EXPECT_FALSE(parse_http_request("GET /metrics HTTP/1.1\r\nHost: x\r\n"));
    const auto ok = parse_http_request("GET /metrics?x=1 HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(ok && ok->request);
    EXPECT_EQ(ok->request->method, "GET");
    EXPECT_EQ(ok->request->path, "/metrics");
    const auto bad = parse_http_request("garbage\r\n\r\n");
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 400);
    const auto huge = parse_http_request(std::string(k_max_http_request + 1, 'a'));
    ASSERT_TRUE(huge);
    EXPECT_EQ(huge->status, 431);
    const auto r = http_response(200, "text/plain", "hi");
    EXPECT_EQ(r, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n"
                 "Connection: close\r\n\r\nhi");
}

} // namespace
} // namespace jp::daemon
