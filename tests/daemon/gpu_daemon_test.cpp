// SPDX-License-Identifier: BSD-3-Clause
// jouleprofd (root) reads a stand-in H100 (model=h100: each energy read spins 3.9 ms) once for
// every client: its energy counter at the clients' edges and every anchor, its power fields
// in between. A client that cannot load NVML itself gets all of it, and its report shapes a
// phase between two anchors from the field as a local run does (gpu_anchor_test.cpp).
#include "daemon_fixture.hpp"
#include "gpu_profile.hpp"
#include "trace/reader.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <thread>

namespace jp::test {
namespace {

using json = nlohmann::json;

const json& part_named(const json& owner, const std::string& name) {
    for (const auto* list : {"parts", "not_summed"}) {
        for (const auto& p : owner.at(list)) {
            if (p.at("name") == name) {
                return p;
            }
        }
    }
    throw std::runtime_error("no " + name + " in " + owner.dump());
}

using DaemonGpu = DaemonTest;

TEST_F(DaemonGpu, AClientGetsTheAnchoredGpuAndItsPhasesFromTheDaemon) {
    // Ramps between 100 W and 500 W, 3 s each way, so that any phase of seconds sees the
    // power change (ramps, not steps: the profile is the 1 s mean, which follows a ramp and
    // blurs a step over a second); a continuous counter (update_ms=0), so that the truth at
    // any instant is the integral.
    Profile profile;
    for (int i = 0; i <= 40; ++i) {
        profile.points.emplace_back(3.0 * i, i % 2 == 0 ? 100.0 : 500.0);
    }
    fs.add(
        {"/h100.fixture", profile.fixture("gpu 0 00000000:3B:00.0 model=h100 update_ms=0"), 0644});
    const auto origin = path("/origin");
    ::setenv("JP_FAKE_NVML_FIXTURE", path("/h100.fixture").c_str(), 1);
    ::setenv("JP_FAKE_ORIGIN_FILE", origin.c_str(), 1);
    start_daemon(fmt::format("[sensors.nvml]\nlibrary = \"{}\"\nanchor = \"2s\"\n", JP_FAKE_NVML));
    ::unsetenv("JP_FAKE_NVML_FIXTURE");
    ::unsetenv("JP_FAKE_ORIGIN_FILE");

    const auto trace = home(k_carol) + "/gpu.jptrace";
    const auto r = sh(
        as(k_carol, jp(fmt::format("run -i 100ms --json --no-live -o {} --mark-regex "
                                   "'begin:\\1=^begin (\\w+)' --mark-regex 'end:\\1=^end (\\w+)' "
                                   "-- sh -c 'sleep 1; echo begin p; sleep 2.5; echo end p; "
                                   "sleep 1' 2>/dev/null",
                                   trace))));
    ASSERT_EQ(r.exit_code, 0) << r.out << daemon_log();
    auto reader = trace::Reader::open(trace);
    ASSERT_TRUE(reader) << reader.error().message();
    long long origin_ns = 0;
    std::ifstream{origin} >> origin_ns;
    ASSERT_GT(origin_ns, 0) << "the daemon loaded the stand-in";
    const auto epoch = std::stoll(reader->meta().at("epoch_mono_ns"));
    const double offset = static_cast<double>(epoch - origin_ns) * 1e-9;
    bool profiled = false;
    for (const auto& c : reader->channels()) {
        if (c.name == "gpu0.power") {
            EXPECT_EQ(c.backend, "jouleprofd");
            EXPECT_EQ(c.profile_of, "gpu0");
            profiled = true;
        }
    }
    ASSERT_TRUE(profiled) << "the daemon offers the profile with its counter";
    // The daemon stamps each energy read at its call's middle and says how long its calls
    // took (3.9 ms each): the client's trace keeps that, and the bound counts it.
    const auto times = reader->read_times(reader->runs().at(0).id);
    ASSERT_TRUE(times) << times.error().message();
    std::int64_t gpu_call = 0;
    for (std::size_t i = 0; i < reader->channels().size(); ++i) {
        if (reader->channels()[i].name == "gpu0" && i < times->size()) {
            gpu_call = (*times)[i];
        }
    }
    EXPECT_GE(gpu_call, 3'900'000) << "the daemon's read time reached the client's trace";

    const auto run = json::parse(r.out).at("groups").at(0).at("runs").at(0);
    const double start = offset + static_cast<double>(reader->runs().at(0).start_ns) * 1e-9;
    const double runtime = run.at("runtime_s").get<double>();
    const double truth = profile.joules(start, start + runtime);
    EXPECT_NEAR(part_named(run, "gpu0").at("energy_j").get<double>(), truth, 1e-3 * truth)
        << run.dump();
    // 2·P·(the longest call), P the most the GPU can draw: no less than the 500 W it reaches.
    EXPECT_GE(part_named(run, "gpu0").at("bound_terms").at("read_time").get<double>(),
              2 * 500 * 0.0039)
        << run.dump();
    ASSERT_EQ(run.at("phases").size(), 1U);
    const auto& p = run.at("phases").at(0);
    const double phase_truth =
        profile.joules(start + p.at("begin_s").get<double>(), start + p.at("end_s").get<double>());
    EXPECT_NEAR(part_named(p, "gpu0").at("energy_j").get<double>(), phase_truth, 0.02 * phase_truth)
        << p.dump();
    bool covered = false;
    for (const auto& c : run.at("field_coverage")) {
        covered = covered || c.at("field") == "gpu0.power";
    }
    EXPECT_TRUE(covered) << run.at("field_coverage").dump();
}

// A GPU's quiet periods are its own: busy all along (95 %, as a training node's GPU is),
// the daemon does not take its busy power for idle without saying so, while the CPUs'
// state says nothing of it.
TEST_F(DaemonGpu, AGpuBusyAllAlongSaysItsLearnedIdleMayBeHigh) {
    Profile profile;
    for (int i = 0; i <= 40; ++i) {
        profile.points.emplace_back(1.0 * i, i % 2 == 0 ? 600.0 : 650.0);
    }
    fs.add({"/busy.fixture",
            profile.fixture("gpu 0 00000000:3B:00.0 model=h100 update_ms=0") + "util 0 95\n",
            0644});
    const auto origin = path("/origin");
    ::setenv("JP_FAKE_NVML_FIXTURE", path("/busy.fixture").c_str(), 1);
    ::setenv("JP_FAKE_ORIGIN_FILE", origin.c_str(), 1);
    start_daemon(fmt::format("[daemon]\ninterval = \"50ms\"\nidle_period = \"400ms\"\n"
                             "idle_window = \"1m\"\nidle_min_history = \"2s\"\n"
                             "[sensors.nvml]\nlibrary = \"{}\"\nanchor = \"2s\"\n",
                             JP_FAKE_NVML));
    ::unsetenv("JP_FAKE_NVML_FIXTURE");
    ::unsetenv("JP_FAKE_ORIGIN_FILE");
    auto root = probe("root");
    ASSERT_EQ(root->call({{"op", "hello"}, {"versions", {1}}})["ok"], true);
    json field;
    for (int i = 0; i < 100 && (field.is_null() || !field.at("idle").is_object() ||
                                field.at("idle").value("basis", "") != "busy");
         ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
        const auto reply = root->call({{"op", "channels"}});
        for (const auto& c : reply.at("channels")) {
            if (c.at("name") == "gpu0.power") {
                field = c;
            }
        }
    }
    ASSERT_TRUE(field.is_object()) << daemon_log();
    const auto& idle = field.at("idle");
    ASSERT_TRUE(idle.is_object()) << "nothing learned in 10 s:\n" << daemon_log();
    EXPECT_EQ(idle.at("basis"), "busy") << idle.dump();
    EXPECT_NEAR(idle.at("least_busy").get<double>(), 0.95, 0.02) << idle.dump();
    EXPECT_NE(idle.at("how").get<std::string>().find("too few with the GPU <= 10 % busy"),
              std::string::npos)
        << idle.dump();
    EXPECT_GT(idle.at("watts").get<double>(), 550) << idle.dump();
}

} // namespace
} // namespace jp::test
