// SPDX-License-Identifier: BSD-3-Clause
// /metrics: valid exposition text (promtool), and a real Prometheus (Debian's,
// started here on loopback) scrapes it and answers a query for the node's energy.
#include "daemon_fixture.hpp"

#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>

namespace jp::test {
namespace {

bool have(const char* program) {
    return sh(fmt::format("command -v {} >/dev/null", program)).exit_code == 0;
}

using DaemonPrometheus = DaemonTest;

TEST_F(DaemonPrometheus, MetricsPassPromtool) {
    if (!have("promtool")) {
        GTEST_SKIP() << "promtool not installed (Debian package prometheus; scripts/setup.sh)";
    }
    const int port = free_port();
    start_daemon(fmt::format("floor = \"200ms\"\njitter = \"100ms\"\n[prometheus]\n"
                             "listen = \"127.0.0.1:{}\"\n",
                             port));
    std::string response;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{20};
    while (std::chrono::steady_clock::now() < deadline) { // power needs two published windows
        response = http_get(port, "/metrics");
        if (response.find("jouleprof_power_watts{") != std::string::npos) {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
    }
    ASSERT_NE(response.find("200 OK"), std::string::npos) << response;
    const auto text = body_of(response);
    fs.add({"/metrics.txt", text, 0644});
    const auto r = sh(fmt::format("promtool check metrics < {} 2>&1", path("/metrics.txt")));
    EXPECT_EQ(r.exit_code, 0) << r.out << "\n" << text;
    for (const auto* name :
         {"jouleprof_energy_joules_total{", "jouleprof_power_watts{",
          "jouleprof_node_energy_joules_total{", "jouleprof_sensor_up{",
          "jouleprof_daemon_cpu_seconds_total ", "jouleprof_daemon_resident_memory_bytes "}) {
        EXPECT_NE(text.find(name), std::string::npos) << name << "\n" << text;
    }
    EXPECT_NE(text.find("channel=\"cpu0.package\""), std::string::npos);
    EXPECT_NE(http_get(port, "/nope").find("404"), std::string::npos);
}

TEST_F(DaemonPrometheus, ARealPrometheusScrapesTheNodesEnergy) {
    if (!have("prometheus")) {
        GTEST_SKIP() << "prometheus not installed (Debian package prometheus; scripts/setup.sh)";
    }
    const int port = free_port();
    start_daemon(fmt::format("[prometheus]\nlisten = \"127.0.0.1:{}\"\n", port));
    const int prom_port = free_port();
    fs.add({"/prometheus.yml",
            fmt::format("global: {{scrape_interval: 1s, evaluation_interval: 1s}}\n"
                        "scrape_configs:\n  - job_name: jouleprof\n    static_configs: "
                        "[{{targets: ['127.0.0.1:{}']}}]\n",
                        port),
            0644});
    std::filesystem::create_directories(fs.path("/prom-data"));
    const auto log = path("/prometheus.log");
    const pid_t prom = ::fork();
    if (prom == 0) {
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        ::dup2(fd, STDOUT_FILENO);
        ::dup2(fd, STDERR_FILENO);
        const auto config = "--config.file=" + path("/prometheus.yml");
        const auto data = "--storage.tsdb.path=" + path("/prom-data");
        const auto listen = fmt::format("--web.listen-address=127.0.0.1:{}", prom_port);
        ::execlp("prometheus", "prometheus", config.c_str(), data.c_str(), listen.c_str(),
                 static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // The first scrape lands about 5 s after start (Prometheus throttles the first target update).
    double joules = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{40};
    while (joules <= 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds{500});
        const auto body =
            body_of(http_get(prom_port, "/api/v1/query?query=jouleprof_node_energy_joules_total"));
        const auto j = nlohmann::json::parse(body, nullptr, false);
        if (j.is_object() && j["status"] == "success" && !j["data"]["result"].empty()) {
            joules = std::stod(j["data"]["result"][0]["value"][1].get<std::string>());
        }
    }
    ::kill(prom, SIGTERM);
    int st = 0;
    ::waitpid(prom, &st, 0);
    std::ifstream f{log};
    const std::string prom_log{std::istreambuf_iterator<char>{f}, {}};
    EXPECT_GT(joules, 0) << "Prometheus never answered with the node's energy\n"
                         << prom_log.substr(prom_log.size() > 4000 ? prom_log.size() - 4000 : 0);
}

} // namespace
} // namespace jp::test
