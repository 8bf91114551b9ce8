// SPDX-License-Identifier: BSD-3-Clause
// jouleprofd under faults: the daemon killed mid-job, a client killed
// mid-session, garbage, oversized and half-sent requests, bad config files.
#include "daemon_fixture.hpp"
#include "trace/reader.hpp"

#include <csignal>
#include <filesystem>
#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>

namespace jp::test {
namespace {

using nlohmann::json;

json hello() {
    return {{"op", "hello"}, {"versions", {1}}};
}

std::size_t open_fds(pid_t pid) {
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(fmt::format("/proc/{}/fd", pid))) {
        (void)e;
        ++n;
    }
    return n;
}

// A raw connection from the test itself (root).
int connect_raw(const std::string& socket) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket.c_str(), sizeof addr.sun_path - 1);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    timeval tv{20, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

// Everything the daemon sends until it closes the connection (or 20 s pass).
std::string read_to_end(int fd) {
    std::string out;
    char buf[4096];
    ssize_t n = 0;
    while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) {
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

using DaemonFaults = DaemonTest;

TEST_F(DaemonFaults, DaemonKilledMidJobLeavesTheJobAndItsTraceIntact) {
    start_daemon();
    const auto trace = home(k_alice) + "/killed.jptrace";
    const auto cmd = as(k_alice, jp(fmt::format("run -i 200ms --no-live -o {} -- {}/jp_test_job 5 "
                                                "{}/job.txt 5 2>&1",
                                                trace, bin, home(k_alice))));
    // Killed 1.2 s after alice's session opened (not after a fixed time: on a loaded
    // machine her jouleprof may take longer than that to start).
    auto root = probe("root");
    ASSERT_EQ(root->call(hello())["ok"], true);
    std::thread killer{[this, &root] {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{30};
        while (root->call({{"op", "sessions"}})["sessions"].empty() &&
               std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds{20});
        }
        std::this_thread::sleep_for(std::chrono::milliseconds{1200});
        ::kill(daemon_pid, SIGKILL);
    }};
    const auto r = sh(cmd);
    killer.join();
    stop_daemon(SIGKILL); // reaps it
    EXPECT_EQ(r.exit_code, 5) << "the job's own status passes through\n" << r.out;
    EXPECT_NE(r.out.find("jouleprofd"), std::string::npos) << "the output says what happened\n"
                                                           << r.out;
    auto reader = trace::Reader::open(trace);
    ASSERT_TRUE(reader) << reader.error().message();
    const auto& run = reader->runs().at(0);
    EXPECT_EQ(run.status, "complete");
    EXPECT_EQ(run.exit_code, 5);
    auto events = reader->events(run.id);
    ASSERT_TRUE(events);
    const bool gap = std::ranges::any_of(*events, [](const auto& e) { return e.kind == "gone"; });
    EXPECT_TRUE(gap) << "the trace records when the daemon's channel went away";
    const auto report = sh(fmt::format("{}/jouleprof report {} 2>&1", bin, trace));
    EXPECT_EQ(report.exit_code, 0) << report.out;
    EXPECT_NE(report.out.find("lost"), std::string::npos) << "the figure is not shown as complete\n"
                                                          << report.out;
    // "Lost after" is the last reading's time: the readings and the report agree, and the
    // time after it is not counted as zero.
    const auto json_report =
        sh(fmt::format("{}/jouleprof report --json {} 2>/dev/null", bin, trace));
    const auto j = nlohmann::json::parse(json_report.out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << json_report.out;
    const auto& parts = j["groups"][0]["runs"][0]["parts"];
    ASSERT_TRUE(parts.is_array() && !parts.empty()) << json_report.out;
    const auto& part = parts[0];
    ASSERT_TRUE(part.contains("lost_at_s")) << part;
    auto samples = reader->samples(run.id, 0);
    ASSERT_TRUE(samples && !samples->points.empty());
    // (The start edge is read just before the run starts: a figure covers no less than 0 s.)
    const auto last_s =
        std::max(0.0, static_cast<double>(samples->points.back().t_ns - run.start_ns) * 1e-9);
    EXPECT_NEAR(part["lost_at_s"].get<double>(), last_s, 1e-6) << part;
    if (last_s > 0) {
        EXPECT_NEAR(part["avg_w"].get<double>(), part["energy_j"].get<double>() / last_s, 1e-6)
            << "the mean power is over the time the figure covers";
        EXPECT_NE(report.out.find("the rest is not counted, not as zero"), std::string::npos)
            << report.out;
    } else {
        EXPECT_NE(report.out.find("no reading after the start"), std::string::npos) << report.out;
    }
}

TEST_F(DaemonFaults, ClientKilledMidSessionEndsTheSession) {
    start_daemon();
    auto root = probe("root");
    ASSERT_EQ(root->call(hello())["ok"], true);
    const auto baseline_fds = open_fds(daemon_pid);
    auto alice = probe(k_alice);
    const auto first = alice->line();
    ASSERT_TRUE(first && first->starts_with("pid ")) << first.value_or("(nothing)");
    const auto client_pid = std::stoi(first->substr(4));
    ASSERT_EQ(alice->call(hello())["ok"], true);
    const auto id = alice->call({{"op", "open"}})["session"].get<std::string>();
    ASSERT_EQ(alice->call({{"op", "stream"}, {"session", id}, {"interval_ms", 100}})["ok"], true);
    ASSERT_EQ(root->call({{"op", "sessions"}})["sessions"].size(), 1U);

    ::kill(client_pid, SIGKILL); // the client itself, not runuser
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{10};
    while (!root->call({{"op", "sessions"}})["sessions"].empty()) {
        ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the session outlived its client";
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
    EXPECT_EQ(root->call({{"op", "session"}, {"session", id}})["error"], "no_such_session");
    EXPECT_EQ(open_fds(daemon_pid), baseline_fds) << "nothing leaks";
    EXPECT_EQ(root->call({{"op", "status"}})["clients"], 1) << "only root's probe is left";
}

TEST_F(DaemonFaults, GarbageOversizedAndHalfSentRequestsHarmNobody) {
    start_daemon("[daemon]\nclient_timeout = \"1s\"\n");
    auto good = probe(k_bob);
    ASSERT_EQ(good->call(hello())["ok"], true);

    auto garbage = probe(k_alice);
    garbage->send("this is not json");
    EXPECT_EQ(garbage->reply()["error"], "bad_request");
    garbage->send("[1,2,3]");
    EXPECT_EQ(garbage->reply()["error"], "bad_request");
    garbage->send(R"({"op":"open"})");
    EXPECT_EQ(garbage->reply()["error"], "hello_first");
    garbage->send(R"({"op":"hello","versions":[99]})");
    EXPECT_EQ(garbage->reply()["error"], "unsupported_version");
    garbage->send(R"({"op":"hello","versions":[1],"id":"x"})");
    EXPECT_EQ(garbage->reply()["error"], "bad_request");
    garbage->send(R"({"op":"hello","versions":[1],"id":7})");
    const auto ok = garbage->reply();
    EXPECT_EQ(ok["ok"], true) << "the connection survived the garbage";
    EXPECT_EQ(ok["id"], 7);
    garbage->send(R"({"op":"fly","id":8})");
    EXPECT_EQ(garbage->reply()["error"], "unknown_op");
    garbage->send("{\"op\":\"open\",\"label\":\"\xff\xfe\"}"); // invalid UTF-8
    EXPECT_EQ(garbage->reply()["error"], "bad_request");

    const int big = connect_raw(socket);
    ASSERT_GE(big, 0);
    const std::string huge(70 * 1024, 'x');
    (void)!::send(big, huge.data(), huge.size(), MSG_NOSIGNAL);
    const auto said = read_to_end(big); // then the daemon closes it
    EXPECT_NE(said.find("too_large"), std::string::npos) << said;
    ::close(big);

    const int half = connect_raw(socket);
    ASSERT_GE(half, 0);
    (void)!::send(half, R"({"op":"hel)", 10, MSG_NOSIGNAL);
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(read_to_end(half), "") << "dropped without a reply";
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds{15})
        << "closed by the daemon, not by our 20 s receive timeout";
    ::close(half);

    const auto status = good->call({{"op", "status"}});
    EXPECT_EQ(status["ok"], true) << "the daemon kept serving the well-behaved client";
}

TEST_F(DaemonFaults, BadConfigIsRefusedWithOneLine) {
    const auto check = [&](const std::string& toml, mode_t mode, const char* expect) {
        fs.add({"/bad.toml", toml, mode});
        const auto r = sh(fmt::format("{} --sysfs-root {} -c {} --check 2>&1", JP_DAEMON,
                                      fs.root().string(), path("/bad.toml")));
        EXPECT_EQ(r.exit_code, 2) << toml << r.out;
        EXPECT_EQ(std::ranges::count(r.out, '\n'), 1) << r.out;
        EXPECT_NE(r.out.find(expect), std::string::npos) << r.out;
    };
    check("[daemon]\nintervall = \"1s\"\n", 0644, "intervall");
    check("[access]\nfloor = \"soon\"\n", 0644, "floor");
    check("[access]\nothers = \"maybe\"\n", 0644, "others");
    check("[access]\nfull_resolution_groups = [\"no-such-group-xyz\"]\n", 0644,
          "no-such-group-xyz");
    check("[access]\nedge_reads_per_minute = nan\n", 0644, "edge_reads_per_minute");
    check("[prometheus]\nlisten = 9940\n", 0644, "listen");
    check("[sensors.powercap]\nintreval = \"1s\"\n", 0644, "intreval");
    check("[access]\nothers = \"floor\"\n", 0666, "writable by other users");
    fs.add({"/good.toml", "[access]\nothers = \"floor\"\n", 0644});
    const auto ok = sh(fmt::format("{} --sysfs-root {} -c {} --check 2>&1", JP_DAEMON,
                                   fs.root().string(), path("/good.toml")));
    EXPECT_EQ(ok.exit_code, 0) << ok.out;
    EXPECT_EQ(sh(fmt::format("{} -c /nonexistent.toml --check 2>&1", JP_DAEMON)).exit_code, 2);
}

TEST_F(DaemonFaults, WithoutADaemonTheUserIsToldAndTheJobRuns) {
    const auto r = sh(as(k_alice, jp(fmt::format("-v run --no-live -o {}/none.jptrace -- "
                                                 "{}/jp_test_job 0.2 {}/j.txt 3 2>&1",
                                                 home(k_alice), bin, home(k_alice)))));
    EXPECT_EQ(r.exit_code, 3) << r.out;
    EXPECT_NE(r.out.find("jouleprofd: not running here"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("run jouleprofd"), std::string::npos) << "the hint names the fix\n"
                                                               << r.out;
}

TEST_F(DaemonFaults, ASecondDaemonOnTheSameSocketIsRefused) {
    start_daemon();
    const auto r = sh(
        fmt::format("{} --sysfs-root {} --socket {} 2>&1", JP_DAEMON, fs.root().string(), socket));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("already running"), std::string::npos) << r.out;
    auto root = probe("root");
    EXPECT_EQ(root->call(hello())["ok"], true) << "the first one still serves";
}

TEST_F(DaemonFaults, SigtermStopsCleanlyAndRemovesTheSocket) {
    start_daemon();
    auto alice = probe(k_alice);
    ASSERT_EQ(alice->call(hello())["ok"], true);
    EXPECT_EQ(stop_daemon(SIGTERM), 0) << daemon_log();
    bool told = false;
    while (auto l = alice->line(std::chrono::seconds{5})) {
        told = told || l->find("\"closing\"") != std::string::npos;
    }
    EXPECT_TRUE(told) << "clients hear that the daemon stops";
    EXPECT_FALSE(std::filesystem::exists(socket));
}

} // namespace
} // namespace jp::test
