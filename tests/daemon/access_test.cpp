// SPDX-License-Identifier: BSD-3-Clause
// What each user gets from jouleprofd: measured energy over exact edges for an
// unprivileged `jouleprof run`, no way into another user's session, no more
// exact reads or resolution than the policy allows, full resolution for the
// listed group.
#include "daemon_fixture.hpp"
#include "trace/reader.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <sys/stat.h>
#include <thread>

namespace jp::test {
namespace {

using nlohmann::json;

json hello() {
    return {{"op", "hello"}, {"versions", {1}}};
}

// The (t, value) readings of channel 0 in a probe's stream events.
std::vector<std::pair<std::int64_t, double>> readings(const std::vector<json>& events) {
    std::vector<std::pair<std::int64_t, double>> out;
    for (const auto& e : events) {
        for (const auto& row : e["data"]) {
            if (row[0] != 0) {
                continue;
            }
            for (std::size_t k = 2; k + 1 < row.size(); k += 2) {
                out.emplace_back(row[k].get<std::int64_t>(), row[k + 1].get<double>());
            }
        }
    }
    return out;
}

// Waits for stream events for about `seconds` (events arrive while we wait).
void collect(Peer& p, double seconds) {
    const auto end = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds{static_cast<long>(seconds * 1000)};
    while (std::chrono::steady_clock::now() < end) {
        if (auto l = p.line(std::chrono::milliseconds{100})) {
            auto j = json::parse(*l, nullptr, false);
            if (j.is_object() && j.contains("event")) {
                p.events.push_back(std::move(j));
            }
        }
    }
}

std::int64_t median_step(const std::vector<std::pair<std::int64_t, double>>& r) {
    std::vector<std::int64_t> d;
    for (std::size_t i = 1; i < r.size(); ++i) {
        d.push_back(r[i].first - r[i - 1].first);
    }
    std::ranges::sort(d);
    return d.empty() ? 0 : d[d.size() / 2];
}

using DaemonAccess = DaemonTest;

TEST_F(DaemonAccess, UnprivilegedRunGetsMeasuredPackageEnergyOverExactEdges) {
    start_daemon();
    const auto energy_uj = path("/sys/class/powercap/intel-rapl:0/energy_uj");
    ASSERT_NE(sh(as(k_alice, "cat " + energy_uj + " >/dev/null 2>&1")).exit_code, 0)
        << "the premise: this user cannot read RAPL";
    const auto trace = home(k_alice) + "/run.jptrace";
    const auto job = home(k_alice) + "/job.txt";
    const auto r = sh(as(k_alice, jp(fmt::format("run -i 500ms --json --no-live -o {} -- "
                                                 "{}/jp_test_job 3.05 {} 2>/dev/null",
                                                 trace, bin, job))));
    ASSERT_EQ(r.exit_code, 0) << r.out << daemon_log();

    struct stat st {};
    ASSERT_EQ(::stat(trace.c_str(), &st), 0);
    EXPECT_EQ(static_cast<long>(st.st_uid), uid_of(k_alice)) << "written as the user";
    auto reader = trace::Reader::open(trace);
    ASSERT_TRUE(reader) << reader.error().message();
    const auto epoch = std::stoll(reader->meta().at("epoch_mono_ns"));
    const auto& run = reader->runs().at(0);
    ASSERT_TRUE(run.end_ns);
    const auto start = epoch + run.start_ns;
    const auto end = epoch + *run.end_ns;
    std::ifstream f{job};
    long long job_start = 0;
    long long job_end = 0;
    f >> job_start >> job_end;
    EXPECT_LE(start, job_start) << "the start edge comes before the job";
    EXPECT_LE(job_end, end) << "the end edge comes after the job";

    const double truth = writer->joules_between(start, end);
    const auto j = json::parse(r.out);
    const auto& part = j["groups"][0]["runs"][0]["parts"][0];
    EXPECT_EQ(part["name"], "cpu0.package");
    EXPECT_EQ(part["provenance"], "measured");
    EXPECT_EQ(part["backend"], "jouleprofd");
    EXPECT_NEAR(part["energy_j"].get<double>(), truth, truth * 0.001 + 2 * writer->stall_joules())
        << "more than 0.1 % off the profile's energy over the run's edges (the fake counter's "
           "writer stalled up to "
        << writer->max_gap_ns() << " ns)";
    auto events = reader->events(run.id);
    ASSERT_TRUE(events);
    for (const auto& e : *events) {
        EXPECT_NE(e.kind, "stale_edge") << "an edge was not exact: " << e.detail;
    }
}

// A floored user's exact reads are the floor (1 s) apart: a 0.2 s job gets exact edges a
// second apart, the end edge waiting for it, its energy interpolated, and the run says so.
TEST_F(DaemonAccess, AJobShorterThanTheFloorIsMeasuredOverTheFloor) {
    start_daemon();
    const auto trace = home(k_alice) + "/short.jptrace";
    const auto job = home(k_alice) + "/job.txt";
    const auto r = sh(as(k_alice, jp(fmt::format("run --json --no-live -o {} -- "
                                                 "{}/jp_test_job 0.2 {} 2>{}/err.txt",
                                                 trace, bin, job, home(k_alice)))));
    ASSERT_EQ(r.exit_code, 0) << r.out << daemon_log();
    const auto err = sh("cat " + home(k_alice) + "/err.txt").out;
    EXPECT_NE(err.find("the end edge waits"), std::string::npos) << err;
    EXPECT_NE(err.find("interpolated"), std::string::npos) << err;
    EXPECT_NE(err.find("at least 1000 ms apart"), std::string::npos) << err;
    auto reader = trace::Reader::open(trace);
    ASSERT_TRUE(reader) << reader.error().message();
    const auto epoch = std::stoll(reader->meta().at("epoch_mono_ns"));
    auto samples = reader->samples(reader->runs().at(0).id, 0);
    ASSERT_TRUE(samples) << samples.error().message();
    const auto& pts = samples->points;
    ASSERT_GE(pts.size(), 2U);
    const auto first = epoch + pts.front().t_ns;
    const auto last = epoch + pts.back().t_ns;
    EXPECT_GE(last - first, 1'000'000'000) << "the exact edges are the floor apart";
    std::ifstream f{job};
    long long job_start = 0;
    long long job_end = 0;
    f >> job_start >> job_end;
    EXPECT_LE(first, job_start) << "the window covers the job";
    EXPECT_LE(job_end, last) << "the window covers the job";
    // The job's share of the window, interpolated: more than nothing, less than the window.
    const double window = writer->joules_between(first, last);
    const auto j = json::parse(r.out);
    const auto& part = j["groups"][0]["runs"][0]["parts"][0];
    EXPECT_GT(part["energy_j"].get<double>(), 0.0) << r.out;
    EXPECT_LT(part["energy_j"].get<double>(), window) << r.out;
}

TEST_F(DaemonAccess, AnotherUserCannotReadMarkOrCloseTheSession) {
    start_daemon();
    auto alice = probe(k_alice);
    ASSERT_EQ(alice->call(hello())["ok"], true);
    const auto opened = alice->call({{"op", "open"}, {"label", "alice's job"}});
    ASSERT_EQ(opened["ok"], true) << opened;
    const auto id = opened["session"].get<std::string>();
    ASSERT_EQ(
        alice->call({{"op", "mark"}, {"session", id}, {"kind", "begin"}, {"name", "train"}})["ok"],
        true);

    auto bob = probe(k_bob);
    ASSERT_EQ(bob->call(hello())["ok"], true);
    for (const auto* op : {"read", "latest", "session", "close"}) {
        const auto r = bob->call({{"op", op}, {"session", id}});
        EXPECT_EQ(r["ok"], false) << op;
        EXPECT_EQ(r["error"], "not_yours") << op << ": " << r;
    }
    const auto mark = bob->call({{"op", "mark"}, {"session", id}, {"name", "spoof"}});
    EXPECT_EQ(mark["error"], "not_yours") << mark;
    const auto stream = bob->call({{"op", "stream"}, {"session", id}, {"interval_ms", 100}});
    EXPECT_EQ(stream["error"], "not_yours") << stream;
    EXPECT_TRUE(bob->call({{"op", "sessions"}})["sessions"].empty()) << "bob sees no sessions";

    const auto mine = alice->call({{"op", "session"}, {"session", id}});
    ASSERT_EQ(mine["ok"], true) << mine;
    EXPECT_EQ(mine["uid"], uid_of(k_alice));
    ASSERT_EQ(mine["markers"].size(), 1U) << "bob's marker never landed";
    EXPECT_EQ(mine["markers"][0][2], "train");

    auto root = probe("root");
    ASSERT_EQ(root->call(hello())["ok"], true);
    EXPECT_EQ(root->call({{"op", "session"}, {"session", id}})["ok"], true) << "root may look";
    EXPECT_EQ(alice->call({{"op", "close"}, {"session", id}})["ok"], true);
    EXPECT_EQ(alice->call({{"op", "read"}, {"session", id}})["error"], "no_such_session");
}

TEST_F(DaemonAccess, FlooredUserGetsNoMoreThanThePolicyAllows) {
    start_daemon("floor = \"500ms\"\njitter = \"200ms\"\n");
    auto alice = probe(k_alice);
    const auto h = alice->call(hello());
    ASSERT_EQ(h["access"], "floor") << h;
    EXPECT_EQ(h["floor_ms"], 500);
    const auto ch = alice->call({{"op", "channels"}})["channels"][0];
    EXPECT_EQ(ch["floored"], true);
    EXPECT_EQ(ch["resolution_ms"], 500);
    const auto id = alice->call({{"op", "open"}})["session"].get<std::string>();

    // No floored exact read comes within the floor of the daemon's start.
    std::this_thread::sleep_for(std::chrono::milliseconds{600});
    int fresh = 0;
    int reused = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 50; ++i) { // as fast as it can, start and end edges in turn
        const auto r =
            alice->call({{"op", "read"}, {"session", id}, {"edge", i % 2 == 0 ? "start" : "end"}});
        if (r["ok"] == true) {
            ++(r.contains("reused_ns") ? reused : fresh);
        } else {
            ASSERT_EQ(r["error"], "too_soon") << r;
            EXPECT_GT(r["retry_after_ms"].get<long>(), 0);
            EXPECT_LE(r["retry_after_ms"].get<long>(), 500);
        }
    }
    // Exact reads at least the floor apart: one fresh read per 500 ms the loop took (one,
    // unless the machine stalled), the start edges given the last one again.
    const auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_GE(fresh, 1);
    EXPECT_LE(fresh, 1 + took / std::chrono::milliseconds{500});
    EXPECT_GE(reused, 25 - fresh);

    ASSERT_EQ(alice->call({{"op", "stream"}, {"session", id}, {"interval_ms", 1}})["ok"], true);
    collect(*alice, 3.0);
    const auto r = readings(alice->events);
    ASSERT_GE(r.size(), 2U);
    for (std::size_t i = 1; i < r.size(); ++i) {
        // Windows last at least the floor, between the readings' own times.
        EXPECT_GE(r[i].first - r[i - 1].first, 500'000'000) << "reading " << i;
    }
}

TEST_F(DaemonAccess, TheListedGroupGetsFullResolution) {
    start_daemon("floor = \"1s\"\nedge_reads_burst = 2\n");
    auto carol = probe(k_carol);
    const auto h = carol->call(hello());
    ASSERT_EQ(h["access"], "full") << h;
    const auto ch = carol->call({{"op", "channels"}})["channels"][0];
    EXPECT_EQ(ch["floored"], false);
    EXPECT_EQ(ch["resolution_ms"], 100);
    const auto id = carol->call({{"op", "open"}})["session"].get<std::string>();
    for (int i = 0; i < 20; ++i) {
        ASSERT_EQ(carol->call({{"op", "read"}, {"session", id}})["ok"], true) << "read " << i;
    }
    ASSERT_EQ(carol->call({{"op", "stream"}, {"session", id}, {"interval_ms", 100}})["ok"], true);
    collect(*carol, 2.0);
    const auto r = readings(carol->events);
    ASSERT_GE(r.size(), 3U);
    EXPECT_LT(median_step(r), 1'000'000'000) << "finer than the floor others get";
    // Every reading of the history arrives: numbers run on without a gap.
    std::uint64_t next = 0;
    for (const auto& e : carol->events) {
        EXPECT_EQ(e["lost"], 0);
        for (const auto& row : e["data"]) {
            const auto first = row[1].get<std::uint64_t>();
            EXPECT_TRUE(next == 0 || first == next) << "gap before reading " << first;
            next = first + (row.size() - 2) / 2;
        }
    }
}

TEST_F(DaemonAccess, SighupReloadsTheAccessRules) {
    start_daemon();
    auto before = probe(k_bob);
    ASSERT_EQ(before->call(hello())["access"], "floor");
    // Beside [access], two keys only a restart applies: the log names them.
    fs.add({"/jouleprofd.toml",
            "[access]\nothers = \"deny\"\n[daemon]\nidle_period = \"2m\"\n[prometheus]\n"
            "max_connections = 4\n",
            0644});
    ::kill(daemon_pid, SIGHUP);
    const auto refusal = before->reply(); // the open connection is told and closed
    EXPECT_EQ(refusal["error"], "denied") << refusal;
    auto after = probe(k_bob);
    const auto h = after->call(hello());
    EXPECT_EQ(h["ok"], false);
    EXPECT_EQ(h["error"], "denied") << h;
    auto root = probe("root");
    EXPECT_EQ(root->call(hello())["access"], "full") << "root keeps full access";
    EXPECT_NE(daemon_log().find("access rules reloaded"), std::string::npos) << daemon_log();
    EXPECT_NE(daemon_log().find("applied only at its next start: [daemon] idle_period, "
                                "[prometheus] max_connections\n"),
              std::string::npos)
        << daemon_log();
}

} // namespace
} // namespace jp::test
