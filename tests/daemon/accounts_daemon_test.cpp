// SPDX-License-Identifier: BSD-3-Clause
// Every job's share on /metrics ([prometheus] per_job): the real daemon as root, two users'
// `jouleprof run` bound to a CPU each (one busy, one asleep) and a CPU burner outside any
// job on the sleeper's CPU. The busy job is charged the work, the sleeper its idle power
// and not its neighbour's work, the burner is "other", and the parts add up to the node's
// own energy counter on the same page.
#include "daemon_fixture.hpp"

#include <fmt/format.h>
#include <map>
#include <regex>
#include <thread>

namespace jp::test {
namespace {

struct Sample {
    std::map<std::string, std::string> labels;
    double value = 0;
};

// Every sample of one metric in an exposition text.
std::vector<Sample> samples(const std::string& text, const std::string& name) {
    std::vector<Sample> out;
    const std::regex line{"^" + name + R"(\{([^}]*)\} (\S+)$)"};
    const std::regex label{R"re((\w+)="((?:[^"\\]|\\.)*)")re"};
    std::istringstream in{text};
    for (std::string l; std::getline(in, l);) {
        std::smatch m;
        if (!std::regex_match(l, m, line)) {
            continue;
        }
        Sample s;
        s.value = std::stod(m[2]);
        const std::string inner = m[1];
        for (std::sregex_iterator it{inner.begin(), inner.end(), label}, end; it != end; ++it) {
            s.labels[(*it)[1]] = (*it)[2];
        }
        out.push_back(std::move(s));
    }
    return out;
}

double single(const std::string& text, const std::string& name) {
    std::istringstream in{text};
    for (std::string l; std::getline(in, l);) {
        if (l.starts_with(name + " ")) {
            return std::stod(l.substr(name.size() + 1));
        }
    }
    return -1;
}

// cpu0.package's split parts added up, and its energy counter, on one page.
std::pair<double, double> parts_and_energy(const std::string& text) {
    double parts = 0;
    for (const auto& s : samples(text, "jouleprof_split_energy_joules_total")) {
        parts += s.labels.at("channel") == "cpu0.package" ? s.value : 0.0;
    }
    double energy = 0;
    for (const auto& s : samples(text, "jouleprof_energy_joules_total")) {
        energy += s.labels.at("channel") == "cpu0.package" ? s.value : 0.0;
    }
    return {parts, energy};
}

using DaemonAccounts = DaemonTest;

TEST_F(DaemonAccounts, EachJobIsChargedItsOwnShareAndThePartsAddUpToTheNode) {
    if (std::thread::hardware_concurrency() < 2) {
        GTEST_SKIP() << "two CPUs needed to bind the jobs apart";
    }
    const int port = free_port();
    start_daemon(fmt::format("floor = \"200ms\"\njitter = \"100ms\"\n[prometheus]\n"
                             "listen = \"127.0.0.1:{}\"\nper_job = true\n[attribution]\n"
                             "idle_watts = {{ \"cpu0.package\" = 60 }}\n",
                             port));
    // Accounting has begun once a window was split.
    std::string before;
    for (int i = 0; i < 100 && single(before, "jouleprof_split_total") < 1; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
        before = body_of(http_get(port, "/metrics"));
    }
    ASSERT_GE(single(before, "jouleprof_split_total"), 1) << before << daemon_log();
    EXPECT_TRUE(samples(before, "jouleprof_job_info").empty()) << before;

    const auto busy = as(k_alice, jp("run --no-live -- sh -c 'timeout 3 sh -c \"while :; do :; "
                                     "done\"; true' >/dev/null 2>&1"));
    const auto sleeper = as(k_bob, jp("run --no-live -- sleep 3 >/dev/null 2>&1"));
    fs.add({"/busy.sh", busy + "\n", 0755});
    fs.add({"/sleeper.sh", sleeper + "\n", 0755});
    const auto r = sh(fmt::format("taskset -c 0 sh {} & taskset -c 1 sh {} & "
                                  "taskset -c 1 timeout 3 sh -c 'while :; do :; done' & wait",
                                  path("/busy.sh"), path("/sleeper.sh")));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    // The jobs' last CPU readings come with the next window chosen (at most a second apart).
    std::string after;
    for (int i = 0; i < 50; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
        after = body_of(http_get(port, "/metrics"));
        if (single(after, "jouleprof_jobs") == 0 &&
            samples(after, "jouleprof_job_info").size() == 2) {
            break;
        }
    }
    EXPECT_EQ(single(after, "jouleprof_jobs"), 0) << after;
    EXPECT_EQ(single(after, "jouleprof_split_conservation_failures_total"), 0) << after;

    // Who the two jobs were: their users, their CPUs, ended.
    std::map<std::string, std::string> user_of;
    for (const auto& s : samples(after, "jouleprof_job_info")) {
        user_of[s.labels.at("job")] = s.labels.at("user");
        EXPECT_EQ(s.labels.at("state"), "ended") << after;
        EXPECT_EQ(s.labels.at("cpus"), s.labels.at("user") == k_alice ? "0" : "1") << after;
        EXPECT_EQ(s.labels.at("uid"), std::to_string(uid_of(s.labels.at("user").c_str())));
    }
    ASSERT_EQ(user_of.size(), 2U) << after;
    std::map<std::string, std::map<std::string, double>> share; // user -> part -> J
    for (const auto& s : samples(after, "jouleprof_job_energy_joules_total")) {
        if (s.labels.at("channel") == "cpu0.package") {
            share[user_of.at(s.labels.at("job"))][s.labels.at("part")] += s.value;
        }
    }
    std::map<std::string, double> split;
    for (const auto& s : samples(after, "jouleprof_split_energy_joules_total")) {
        split[s.labels.at("part")] += s.labels.at("channel") == "cpu0.package" ? s.value : 0.0;
    }
    const double alice_dynamic = share[k_alice]["dynamic"];
    const double bob_dynamic = share[k_bob]["dynamic"];
    // The busy job did about half the package's work (the burner the other half); the
    // sleeper next to the burner, next to none of it.
    EXPECT_GT(alice_dynamic, 4 * bob_dynamic) << after; // 40x on a quiet machine, 7x under load
    EXPECT_GT(split["other"], 10 * bob_dynamic) << after;
    // Idle power by what each held: a CPU each of the package's two, for about as long.
    EXPECT_GT(share[k_bob]["idle"], 0.6 * share[k_alice]["idle"]) << after;
    EXPECT_LT(share[k_bob]["idle"], 1.6 * share[k_alice]["idle"]) << after;
    // 30 W (half of the package's 60 W idle) for about the 3 s its client ran: from the tick
    // that saw its session open to the one that saw it close (seen 2.5-3.1 s; the load of a
    // 2-core CI machine delays the client's start and end).
    EXPECT_GT(share[k_alice]["idle"], 30 * 2.0) << after;
    EXPECT_LT(share[k_alice]["idle"], 30 * 4.0) << after;
    if (sh("command -v promtool >/dev/null").exit_code == 0) {
        fs.add({"/metrics.txt", after, 0644});
        const auto check =
            sh(fmt::format("promtool check metrics < {} 2>&1", path("/metrics.txt")));
        EXPECT_EQ(check.exit_code, 0) << check.out;
    }

    // Conservation against the node's own counter on the same pages.
    const auto [parts0, energy0] = parts_and_energy(before);
    const auto [parts1, energy1] = parts_and_energy(after);
    EXPECT_NEAR(parts1 - parts0, energy1 - energy0, 1e-3 + 1e-9 * energy1) << after;
    EXPECT_GT(parts1 - parts0, 0) << after;
}

TEST_F(DaemonAccounts, WithoutPerJobMetricsShowsNoJobAndNoSplit) {
    const int port = free_port();
    start_daemon(fmt::format("floor = \"200ms\"\njitter = \"100ms\"\n[prometheus]\n"
                             "listen = \"127.0.0.1:{}\"\n",
                             port));
    auto root = probe("root");
    ASSERT_EQ(root->call({{"op", "hello"}, {"versions", {1}}})["ok"], true);
    const auto r = sh(as(k_alice, jp("run --no-live -- sleep 1.5 >/dev/null 2>&1")));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto text = body_of(http_get(port, "/metrics"));
    ASSERT_NE(text.find("jouleprof_energy_joules_total"), std::string::npos) << text;
    for (const char* name : {"jouleprof_job_", "jouleprof_split_", "jouleprof_jobs "}) {
        EXPECT_EQ(text.find(name), std::string::npos) << name << "\n" << text;
    }
}

} // namespace
} // namespace jp::test
