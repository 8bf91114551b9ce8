// SPDX-License-Identifier: BSD-3-Clause
// Idle power jouleprofd learned from its own history (daemon/idle.hpp), used by an
// unprivileged client's share where its config names none: the real daemon on the
// fake package whose power follows a known profile (150 ± 60 W).
#include "daemon_fixture.hpp"

#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace jp::test {
namespace {

using nlohmann::json;
using DaemonIdle = DaemonTest;

// The first channel's learned idle power, once the daemon has one (up to 10 s); null if not.
json learned_idle(Peer& root) {
    json idle;
    for (int i = 0; i < 100 && (idle.is_null() || idle.empty()); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
        idle = root.call({{"op", "channels"}})["channels"].at(0).at("idle");
    }
    return idle;
}

TEST_F(DaemonIdle, AClientsShareTakesTheIdlePowerTheDaemonLearned) {
    start_daemon("[daemon]\ninterval = \"50ms\"\nidle_period = \"200ms\"\nidle_window = \"1m\"\n"
                 "idle_min_history = \"1s\"\n");
    auto root = probe("root");
    ASSERT_EQ(root->call({{"op", "hello"}, {"versions", {1}}})["ok"], true);
    const json idle = learned_idle(*root);
    ASSERT_TRUE(idle.is_object()) << "nothing learned in 10 s:\n" << daemon_log();
    // The lowest 200 ms means of 150 ± 60 W lie near 90 W: the 5th percentile is well below
    // the mean, never below the profile's least power (slack for the writer's stalls).
    const double learned = idle.at("watts").get<double>();
    EXPECT_GT(learned, 85);
    EXPECT_LT(learned, 140);

    // Carol has full resolution; the periods (200 ms) are shorter than a floored window.
    const auto trace = home(k_carol) + "/idle.jptrace";
    const auto r = sh(as(k_carol, jp(fmt::format("run -i 200ms --json --no-live -o {} -- sleep 1 "
                                                 "2>/dev/null",
                                                 trace))));
    ASSERT_EQ(r.exit_code, 0) << r.out << daemon_log();
    const auto j = json::parse(r.out);
    const auto& a = j["groups"][0]["runs"][0]["attribution"];
    ASSERT_TRUE(a.is_object()) << r.out;
    ASSERT_TRUE(a.at("idle_source").is_string()) << a.dump();
    const auto source = a.at("idle_source").get<std::string>();
    EXPECT_EQ(source, "jouleprofd: the 5th percentile of 200 ms means over up to 1 min");
    bool noted = false;
    for (const auto& n : a.at("notes")) {
        noted = noted ||
                (n.is_string() && n.get<std::string>().starts_with(
                                      "idle power of cpu0.package as jouleprofd learned it from"));
    }
    EXPECT_TRUE(noted) << a.dump();
    EXPECT_NE(a.at("method").get<std::string>().find("idle by allocation (jouleprofd"),
              std::string::npos)
        << a.dump();
    const auto& part = a.at("parts").at(0);
    EXPECT_EQ(part.at("name"), "cpu0.package");
    ASSERT_TRUE(part.at("idle_w").is_number()) << a.dump();
    EXPECT_GT(part.at("idle_w").get<double>(), 85);
    EXPECT_LT(part.at("idle_w").get<double>(), 140);

    // Alice is floored: 200 ms periods would step below her 1 s (+ jitter) windows, so the
    // daemon gives her no learned idle power and her share says it is unknown.
    const auto floored = sh(
        as(k_alice, jp(fmt::format("run -i 200ms --json --no-live -o {}/idle.jptrace -- sleep 0.3 "
                                   "2>/dev/null",
                                   home(k_alice)))));
    ASSERT_EQ(floored.exit_code, 0) << floored.out;
    const auto fj = json::parse(floored.out);
    const auto& fa = fj["groups"][0]["runs"][0]["attribution"];
    EXPECT_TRUE(fa.at("idle_source").is_null()) << fa.dump();
}

TEST_F(DaemonIdle, TheConfigsIdlePowerComesFirst) {
    start_daemon("[daemon]\ninterval = \"50ms\"\nidle_period = \"200ms\"\nidle_window = \"1m\"\n"
                 "idle_min_history = \"1s\"\n");
    auto root = probe("root");
    ASSERT_EQ(root->call({{"op", "hello"}, {"versions", {1}}})["ok"], true);
    for (int i = 0; i < 100; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
        if (root->call({{"op", "channels"}})["channels"].at(0).at("idle").is_object()) {
            break;
        }
    }
    fs.add({"/client-idle.toml",
            "[attribution]\nidle_watts = { \"cpu0.package\" = 42 }\n[sensors.estimate]\n"
            "enabled = false\n",
            0644});
    const auto trace = home(k_carol) + "/cfg.jptrace";
    const auto cmd = fmt::format("{}/jouleprof --sysfs-root {} -c {} run -i 200ms --json --no-live "
                                 "-o {} -- sleep 0.5 2>/dev/null",
                                 bin, fs.root().string(), path("/client-idle.toml"), trace);
    const auto r = sh(as(k_carol, cmd));
    ASSERT_EQ(r.exit_code, 0) << r.out << daemon_log();
    const auto j = json::parse(r.out);
    const auto& a = j["groups"][0]["runs"][0]["attribution"];
    ASSERT_TRUE(a.is_object()) << r.out;
    EXPECT_EQ(a.at("idle_source"), "config");
    EXPECT_DOUBLE_EQ(a.at("parts").at(0).at("idle_w").get<double>(), 42);
}

// The node's /proc/stat under the fake root: 2 CPUs, each busy `use` of the time since
// the start, rewritten in place (the same length each time) every 20 ms.
class FakeProcStat {
public:
    FakeProcStat(const std::filesystem::path& file, double use)
        : m_thread([file, use](const std::stop_token& stop) {
              std::filesystem::create_directories(file.parent_path());
              const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
              const auto t0 = std::chrono::steady_clock::now();
              while (fd >= 0 && !stop.stop_requested()) {
                  const double s =
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                  const auto busy = static_cast<long long>(use * s * 100); // USER_HZ ticks
                  const auto idle = static_cast<long long>((1 - use) * s * 100);
                  std::string text =
                      fmt::format("cpu  {:012} 0 0 {:012} 0 0 0 0 0 0\n", 2 * busy, 2 * idle);
                  for (int cpu = 0; cpu < 2; ++cpu) {
                      text += fmt::format("cpu{} {:012} 0 0 {:012} 0 0 0 0 0 0\n", cpu, busy, idle);
                  }
                  (void)::pwrite(fd, text.data(), text.size(), 0);
                  std::this_thread::sleep_for(std::chrono::milliseconds{20});
              }
              if (fd >= 0) {
                  ::close(fd);
              }
          }) {
        for (int i = 0; i < 100 && !std::filesystem::exists(file); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds{5});
        }
    }

private:
    std::jthread m_thread;
};

// The first channel's learned idle power once it rests on `basis` (up to 10 s); the last
// one seen otherwise.
json idle_on(Peer& root, const std::vector<std::string>& bases) {
    json idle;
    for (int i = 0; i < 100; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
        idle = root.call({{"op", "channels"}})["channels"].at(0).at("idle");
        if (idle.is_object() && std::ranges::find(bases, idle.value("basis", "")) != bases.end()) {
            break;
        }
    }
    return idle;
}

// A node whose CPUs are never quiet (95 % busy) has no quiet period to learn its idle power
// from, and power that does not follow its CPU use (the fake package's profile): the daemon
// keeps the percentile and says it may be above idle, or, where the stale readings of a
// loaded machine happen to line up, extrapolates; a client's share says which.
TEST_F(DaemonIdle, ANodeNeverQuietSaysItsLearnedIdleMayBeHigh) {
    FakeProcStat stat{fs.path("/proc/stat"), 0.95};
    start_daemon("[daemon]\ninterval = \"50ms\"\nidle_period = \"200ms\"\nidle_window = \"1m\"\n"
                 "idle_min_history = \"1s\"\n");
    EXPECT_NE(daemon_log().find("idle power learned from quiet periods (CPUs <= 10 % busy, from " +
                                path("/proc/stat")),
              std::string::npos)
        << daemon_log();
    auto root = probe("root");
    ASSERT_EQ(root->call({{"op", "hello"}, {"versions", {1}}})["ok"], true);
    const json idle = idle_on(*root, {"busy", "extrapolated"});
    ASSERT_TRUE(idle.is_object()) << "nothing learned in 10 s:\n" << daemon_log();
    const auto basis = idle.value("basis", "");
    ASSERT_TRUE(basis == "busy" || basis == "extrapolated") << idle.dump();
    ASSERT_TRUE(idle.at("least_busy").is_number()) << idle.dump();
    EXPECT_GT(idle.at("least_busy").get<double>(), 0.1) << idle.dump();
    EXPECT_NE(idle.at("how").get<std::string>().find(basis == "busy" ? ": may be above idle"
                                                                     : "extrapolated to an "
                                                                       "idle node"),
              std::string::npos)
        << idle.dump();

    const auto r = sh(as(k_carol, jp(fmt::format("run -i 200ms --json --no-live -o {}/busy.jptrace "
                                                 "-- sleep 0.5 2>/dev/null",
                                                 home(k_carol)))));
    ASSERT_EQ(r.exit_code, 0) << r.out << daemon_log();
    const auto j = json::parse(r.out);
    const auto& a = j["groups"][0]["runs"][0]["attribution"];
    ASSERT_TRUE(a.is_object()) << r.out;
    bool warned = false;
    for (const auto& n : a.at("notes")) {
        const auto text = n.is_string() ? n.get<std::string>() : std::string{};
        warned = warned ||
                 (text.starts_with("idle power of cpu0.package: jouleprofd: ") &&
                  (text.ends_with("may be above idle; the job's idle part may be too high, its "
                                  "dynamic part too low") ||
                   text.ends_with("the job's idle and dynamic parts rest on that fit")));
    }
    EXPECT_TRUE(warned) << a.dump();
}

// A node quiet at times (its CPUs 3 % busy) learns from those periods: the CPU use is read in
// its own units (ticks of 1/USER_HZ), not taken as seconds.
TEST_F(DaemonIdle, AQuietNodeLearnsFromItsQuietPeriods) {
    FakeProcStat stat{fs.path("/proc/stat"), 0.03};
    start_daemon("[daemon]\ninterval = \"50ms\"\nidle_period = \"200ms\"\nidle_window = \"1m\"\n"
                 "idle_min_history = \"1s\"\n");
    auto root = probe("root");
    ASSERT_EQ(root->call({{"op", "hello"}, {"versions", {1}}})["ok"], true);
    const json idle = idle_on(*root, {"quiet"});
    ASSERT_TRUE(idle.is_object()) << "nothing learned in 10 s:\n" << daemon_log();
    EXPECT_EQ(idle.at("basis"), "quiet") << idle.dump();
    EXPECT_LT(idle.at("least_busy").get<double>(), 0.1) << idle.dump();
    EXPECT_NE(idle.at("how").get<std::string>().find(" quiet ones (CPUs <= 10 % busy)"),
              std::string::npos)
        << idle.dump();
    EXPECT_GT(idle.at("watts").get<double>(), 85) << idle.dump();
    EXPECT_LT(idle.at("watts").get<double>(), 150) << idle.dump();
}

// A restart keeps what the daemon learned: stopped, it writes its history into its state
// directory; started again, it serves the same idle power at once, before a single period of
// its own has passed.
TEST_F(DaemonIdle, ARestartKeepsTheLearnedIdlePower) {
    const auto state = path("/state");
    const auto config = fmt::format("[daemon]\ninterval = \"50ms\"\nidle_period = \"200ms\"\n"
                                    "idle_window = \"1m\"\nidle_min_history = \"1s\"\n"
                                    "state_dir = \"{}\"\n",
                                    state);
    start_daemon(config);
    auto root = probe("root");
    ASSERT_EQ(root->call({{"op", "hello"}, {"versions", {1}}})["ok"], true);
    const json idle = learned_idle(*root);
    ASSERT_TRUE(idle.is_object()) << "nothing learned in 10 s:\n" << daemon_log();
    EXPECT_NE(daemon_log().find("idle history: none yet in " + state), std::string::npos)
        << daemon_log();
    root.reset();
    ASSERT_EQ(stop_daemon(SIGTERM), 0) << daemon_log();
    struct stat st {};
    ASSERT_EQ(::stat((state + "/idle-history.json").c_str(), &st), 0) << daemon_log();
    EXPECT_EQ(st.st_mode & 07777, 0600U);
    EXPECT_EQ(st.st_uid, 0U);

    start_daemon(config);
    root = probe("root");
    ASSERT_EQ(root->call({{"op", "hello"}, {"versions", {1}}})["ok"], true);
    const auto again = root->call({{"op", "channels"}})["channels"].at(0).at("idle");
    ASSERT_TRUE(again.is_object()) << "learned anew:\n" << daemon_log();
    EXPECT_GE(again.at("periods").get<int>(), idle.at("periods").get<int>());
    EXPECT_GT(again.at("watts").get<double>(), 85);
    EXPECT_LT(again.at("watts").get<double>(), 140);
    EXPECT_NE(daemon_log().find("idle history: "), std::string::npos);
    EXPECT_NE(daemon_log().find(" means of 1 channel taken from a file written "),
              std::string::npos)
        << daemon_log();

    // A history file another user could have written is not read: learned anew, said why.
    root.reset();
    ASSERT_EQ(stop_daemon(SIGTERM), 0);
    ASSERT_EQ(::chmod((state + "/idle-history.json").c_str(), 0666), 0);
    start_daemon(config);
    root = probe("root");
    ASSERT_EQ(root->call({{"op", "hello"}, {"versions", {1}}})["ok"], true);
    EXPECT_TRUE(root->call({{"op", "channels"}})["channels"].at(0).at("idle").is_null());
    EXPECT_NE(daemon_log().find("writable by other users"), std::string::npos) << daemon_log();
}

// Another idle_period: a history no whole number of whose periods make the new one is set
// aside (never written over) and taken up again when the daemon goes back to its period;
// one that does (0.2 s into 0.4 s) is combined into it.
TEST_F(DaemonIdle, AnotherIdlePeriodSetsTheHistoryAsideAndGoingBackTakesItUp) {
    const auto state = path("/state");
    const auto config = [&](const char* period) {
        return fmt::format("[daemon]\ninterval = \"50ms\"\nidle_period = \"{}\"\n"
                           "idle_window = \"1m\"\nidle_min_history = \"1s\"\n"
                           "state_dir = \"{}\"\n",
                           period, state);
    };
    const auto restart = [&](const char* period) {
        ASSERT_EQ(stop_daemon(SIGTERM), 0) << daemon_log();
        start_daemon(config(period));
    };
    start_daemon(config("200ms"));
    {
        auto root = probe("root");
        ASSERT_EQ(root->call({{"op", "hello"}, {"versions", {1}}})["ok"], true);
        ASSERT_TRUE(learned_idle(*root).is_object()) << "nothing learned:\n" << daemon_log();
    }
    restart("300ms");
    EXPECT_NE(daemon_log().find("idle-history.json set aside as idle-history.200000000ns.json "
                                "(idle history: learned over periods of 0.2 s, not 0.3 s): "
                                "learning anew"),
              std::string::npos)
        << daemon_log();
    restart("200ms"); // back: its own history again, served at once
    EXPECT_NE(daemon_log().find("set aside as idle-history.300000000ns.json"), std::string::npos)
        << daemon_log();
    EXPECT_NE(daemon_log().find("(kept in idle-history.200000000ns.json from when this period "
                                "was last used)"),
              std::string::npos)
        << daemon_log();
    {
        auto root = probe("root");
        ASSERT_EQ(root->call({{"op", "hello"}, {"versions", {1}}})["ok"], true);
        EXPECT_TRUE(root->call({{"op", "channels"}})["channels"].at(0).at("idle").is_object())
            << "learned anew:\n"
            << daemon_log();
    }
    restart("400ms"); // two of its periods make one
    EXPECT_NE(daemon_log().find("(learned over periods of 0.2 s: every 2 combined into one of "
                                "0.4 s)"),
              std::string::npos)
        << daemon_log();
    struct stat st {};
    EXPECT_EQ(::stat((state + "/idle-history.300000000ns.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600U);
    // 0.4 s → 0.2 s → 0.4 s: the 0.4 s history set aside is taken back, never the few 0.2 s
    // means combined in its place (and then the set-aside one written over).
    restart("200ms");
    EXPECT_NE(daemon_log().find("set aside as idle-history.400000000ns.json"), std::string::npos)
        << daemon_log();
    restart("400ms");
    EXPECT_NE(daemon_log().find("set aside as idle-history.200000000ns.json (learned over "
                                "periods of 0.2 s); idle history: "),
              std::string::npos)
        << daemon_log();
    EXPECT_NE(daemon_log().find("(kept in idle-history.400000000ns.json"), std::string::npos)
        << daemon_log();
    // A kept history that cannot be taken is said, and left where it is (never lost).
    const auto kept = state + "/idle-history.200000000ns.json";
    ASSERT_EQ(::stat(kept.c_str(), &st), 0) << daemon_log();
    std::ofstream{kept, std::ios::trunc} << "{ not json";
    restart("200ms");
    EXPECT_NE(daemon_log().find("; idle-history.200000000ns.json not used (idle history: not a "
                                "jouleprofd idle history"),
              std::string::npos)
        << daemon_log();
    EXPECT_EQ(::stat(kept.c_str(), &st), 0) << "the damaged one stays for a person to look at";
}

} // namespace
} // namespace jp::test
