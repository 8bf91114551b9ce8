// SPDX-License-Identifier: BSD-3-Clause
// The node's ledger (docs/attribution.md, "Several jobs on one node"): two users' jobs
// through the real daemon at the same time, neither pinned to CPUs (as on a GPU server
// without Slurm), are each charged half the idle power of the CPUs they both held while
// both ran, not all of it; each learns that one other job was there and nothing of whose;
// a job alone keeps all of it. The fake package draws 150 +/- 60 W (never below 90 W), its
// idle power 40 W from the clients' config, so the idle part is 40 W x the runtime.
#include "daemon_fixture.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <thread>

namespace jp::test {
namespace {

using nlohmann::json;
using DaemonLedger = DaemonTest;

constexpr double k_idle_w = 40;

// The run's attribution, from `run --json` written to a file the user owns.
json attribution_of(const std::string& out) {
    std::ifstream in{out};
    const auto j = json::parse(in);
    return j.at("groups").at(0).at("runs").at(0).at("attribution");
}

TEST_F(DaemonLedger, TwoJobsHoldingTheSameCpusShareTheirIdlePower) {
    start_daemon();
    fs.add({"/ledger.toml",
            fmt::format("[attribution]\nidle_watts = {{ \"cpu0.package\" = {} }}\n"
                        "[sensors.estimate]\nenabled = false\n",
                        k_idle_w),
            0644});
    const auto run = [&](const char* user, const std::string& name, const char* seconds) {
        return as(user, fmt::format("{}/jouleprof --sysfs-root {} -c {} run -i 200ms --json-file "
                                    "{}/{}.json --no-live -o {}/{}.jptrace -- sleep {} "
                                    ">/dev/null 2>&1",
                                    bin, fs.root().string(), path("/ledger.toml"), home(user), name,
                                    home(user), name, seconds));
    };
    // Side by side: both start within a few hundred ms of each other and run 6 s (Alice is
    // floored: she sees Carol come no sooner than a second into her run, at worst).
    const auto both =
        sh(fmt::format("({}) & ({}) & wait", run(k_alice, "a", "6"), run(k_carol, "c", "6")));
    ASSERT_EQ(both.exit_code, 0) << both.out << daemon_log();
    for (const auto& [user, name] : {std::pair{k_alice, "a"}, std::pair{k_carol, "c"}}) {
        const auto a = attribution_of(home(user) + "/" + name + ".json");
        ASSERT_TRUE(a.is_object()) << name;
        EXPECT_EQ(a.at("other_jobs"), 1) << a.dump();
        EXPECT_EQ(a.at("other_jobs_at_once"), 1) << a.dump();
        EXPECT_NE(a.at("method").get<std::string>().find("jouleprofd's ledger"), std::string::npos)
            << a.dump();
        const auto& part = a.at("parts").at(0);
        ASSERT_EQ(part.at("name"), "cpu0.package");
        // Both ran nearly all of each other's time: about half the idle power each.
        const double idle = part.at("idle_j").get<double>();
        const double whole =
            part.at("idle_j").get<double>() + part.at("unallocated_j").get<double>();
        std::printf("%s: charged %.1f %% of the package's idle power beside the other job\n", user,
                    100 * idle / whole);
        EXPECT_GT(idle, 0.45 * whole) << a.dump();
        EXPECT_LT(idle, 0.65 * whole) << "charged nearly all of it: " << a.dump();
        // Conservation for the part: job + unallocated + other = the part.
        EXPECT_NEAR(part.at("job_j").get<double>() + part.at("unallocated_j").get<double>() +
                        part.at("other_j").get<double>(),
                    part.at("node_j").get<double>(), 1e-3);
    }

    // Alone: all of it, and no other job.
    const auto alone = sh(run(k_bob, "b", "1"));
    ASSERT_EQ(alone.exit_code, 0) << alone.out << daemon_log();
    const auto a = attribution_of(home(k_bob) + "/b.json");
    EXPECT_EQ(a.at("other_jobs"), 0) << a.dump();
    const auto& part = a.at("parts").at(0);
    EXPECT_NEAR(part.at("idle_j").get<double>(),
                part.at("idle_j").get<double>() + part.at("unallocated_j").get<double>(), 1e-6)
        << "nobody else held its CPUs: " << a.dump();
}

// What one user may learn of another's jobs through the ledger: how many there were, never
// whose, and a floored user no time finer than its floor.
TEST_F(DaemonLedger, AnotherUserSeesOnlyHowManyOtherJobs) {
    start_daemon();
    auto alice = probe(k_alice);
    auto bob = probe(k_bob);
    ASSERT_EQ(alice->call({{"op", "hello"}, {"versions", {1}}})["ok"], true);
    ASSERT_EQ(bob->call({{"op", "hello"}, {"versions", {1}}})["ok"], true);
    const auto mine = alice->call({{"op", "open"}, {"label", "a"}});
    ASSERT_EQ(mine["ok"], true) << mine.dump();
    const auto theirs = bob->call({{"op", "open"}, {"label", "b"}});
    ASSERT_EQ(theirs["ok"], true);
    std::this_thread::sleep_for(std::chrono::milliseconds{1500}); // past one floor
    const auto v = alice->call({{"op", "ledger"}, {"session", mine["session"]}});
    ASSERT_EQ(v["ok"], true) << v.dump();
    EXPECT_EQ(v["other_jobs"], 1);
    EXPECT_FALSE(v.contains("sessions"));
    EXPECT_EQ(v.dump().find(theirs["session"].get<std::string>()), std::string::npos);
    EXPECT_EQ(v.dump().find(k_bob), std::string::npos);
    // Bob's session opened after Alice's: its time comes rounded up to a multiple of Alice's
    // floor (1 s), never as it was
    ASSERT_EQ(v["segments"].size(), 2U) << "alone, then with Bob's: " << v.dump();
    // (on the daemon's clock itself: a span's start the caller picks moves nothing).
    const auto& bobs = v["segments"][1];
    EXPECT_EQ(bobs[0].get<std::int64_t>() % 1'000'000'000, 0) << v.dump();
    // Someone else's session is not theirs to ask about.
    const auto other = alice->call({{"op", "ledger"}, {"session", theirs["session"]}});
    EXPECT_EQ(other["error"], "not_yours") << other.dump();
    const auto bad =
        alice->call({{"op", "ledger"}, {"session", mine["session"]}, {"from_ns", "x"}});
    EXPECT_EQ(bad["error"], "bad_request") << bad.dump();
    // Grouped (as jouleprof asks, one group per package): the sums and Bob's time as rounded.
    const auto cpus = v["cpus"].get<std::vector<int>>();
    const auto g = alice->call({{"op", "ledger"},
                                {"session", mine["session"]},
                                {"groups", {cpus, nlohmann::json::array()}}});
    ASSERT_EQ(g["ok"], true) << g.dump();
    EXPECT_FALSE(g.contains("cpus"));
    ASSERT_EQ(g["segments"].size(), 2U) << g.dump();
    EXPECT_EQ(g["segments"][1][0], bobs[0]) << g.dump();
    const auto n = static_cast<double>(cpus.size());
    EXPECT_EQ(g["segments"][0][1][0].get<double>(), n) << "alone: each CPU all Alice's";
    EXPECT_EQ(g["groups"].size(), 1U) << "an empty group is left out";
    EXPECT_FALSE(g.contains("more_from_ns")) << "one page";
    EXPECT_EQ(g["other_jobs"], 1);
    for (const auto& groups :
         {nlohmann::json{{-1}}, nlohmann::json{{70'000}}, nlohmann::json{"0"}, nlohmann::json(5),
          nlohmann::json{{0, 1}, {1}}}) { // CPU 1 in two groups
        const auto refused =
            alice->call({{"op", "ledger"}, {"session", mine["session"]}, {"groups", groups}});
        EXPECT_EQ(refused["error"], "bad_request") << groups.dump() << refused.dump();
    }
    // A malformed view costs its walk of the groups too: it is rationed as views are (16 at
    // once, an attacker's flood of them slowed the daemon for everyone).
    std::size_t rationed = 0;
    for (int i = 0; i < 20; ++i) {
        const auto r =
            alice->call({{"op", "ledger"}, {"session", mine["session"]}, {"groups", {{0, 0}}}});
        rationed += r["error"] == "rate_limited" ? 1U : 0U;
    }
    EXPECT_GT(rationed, 0U);
}

} // namespace
} // namespace jp::test
