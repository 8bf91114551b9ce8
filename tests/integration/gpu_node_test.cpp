// SPDX-License-Identifier: BSD-3-Clause
// The real binary on a stand-in H100 (the stand-in NVML with model=h100: the counter and
// the power fields change every 100 ms, an energy read spins 3.9 ms, as measured on a real
// H100, docs/gpu-check.md), the GPU the only meter. Read every 100 ms, the default, a
// counter that changes every 100 ms holds zero or two updates in some spans: the report
// must draw no peak from that, and must call a phase shorter than an update not measurable.
#include "fake_sysfs.hpp"
#include "shell.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace jp::test {
namespace {

class GpuNode : public ::testing::Test {
protected:
    void SetUp() override {
        // The counter read at the interval, as before anchors (gpu_anchor_test.cpp: anchored).
        fs.add({"/config.toml",
                "[sensors.estimate]\nenabled = false\n[sensors.nvml]\nanchor = \"off\"\n"});
        fs.add({"/h100.fixture", "gpu 0 00000000:3B:00.0 model=h100\npower 0 0 300\n"});
    }
    // `report --json` of one run of `args` on the stand-in H100 drawing 300 W.
    nlohmann::json run(const std::string& args) const {
        const auto trace = fs.path("/t.jptrace").string();
        const auto r = sh(fmt::format(
            "JP_FAKE_NVML_FIXTURE={} {} -q --sysfs-root {} -c {} --nvml-library {} run --no-live "
            "-i 10ms -o {} {} >/dev/null && {} report --json {}",
            fs.path("/h100.fixture").string(), JP_BINARY, fs.root().string(),
            fs.path("/config.toml").string(), JP_FAKE_NVML, trace, args, JP_BINARY, trace));
        EXPECT_EQ(r.exit_code, 0) << r.out;
        return nlohmann::json::parse(r.out).at("groups").at(0).at("runs").at(0);
    }
    FakeSysfs fs;
};

const nlohmann::json& gpu0(const nlohmann::json& owner) {
    for (const auto& p : owner.at("parts")) {
        if (p.at("name") == "gpu0") {
            return p;
        }
    }
    throw std::runtime_error("no gpu0 in " + owner.dump());
}

TEST_F(GpuNode, A100MillisecondCounterShowsNoPhantomPeak) {
    const auto r = run("-- sleep 3");
    const auto& g = gpu0(r);
    // Before the backend said its update period, this run's 100 ms peak was 402 W.
    EXPECT_LT(g.at("peak_w").get<double>(), 330.0) << g.dump();
    EXPECT_GT(g.at("peak_w").get<double>(), 290.0);
    const double truth = 300.0 * r.at("runtime_s").get<double>();
    EXPECT_LE(g.at("energy_low_j").get<double>(), truth);
    EXPECT_GE(g.at("energy_high_j").get<double>(), truth);
    // Each energy read spins 3.9 ms and is stamped at its middle: the bound counts that,
    // at each edge, at no less than the 300 W it draws.
    EXPECT_GE(g.at("bound_terms").at("read_time").get<double>(), 2 * 300 * 0.0039) << g.dump();
    bool said = false;
    for (const auto& n : r.at("notes")) {
        said = said || n.get<std::string>().find("changes every ~100 ms") != std::string::npos;
    }
    EXPECT_TRUE(said) << r.at("notes").dump();
}

TEST_F(GpuNode, APhaseShorterThanAnUpdateIsNotMeasurable) {
    const auto r = run("--mark-regex 'begin:\\1=^begin (\\w+)' --mark-regex 'end:\\1=^end (\\w+)' "
                       "-- sh -c 'echo begin short; sleep 0.05; echo end short; "
                       "echo begin long; sleep 2.5; echo end long'");
    int seen = 0;
    for (const auto& p : r.at("phases")) {
        const auto& g = gpu0(p);
        const double truth = 300.0 * p.at("runtime_s").get<double>();
        if (p.at("name") == "short") {
            ++seen;
            EXPECT_FALSE(g.at("measurable").get<bool>()) << g.dump();
        } else if (p.at("name") == "long") {
            ++seen;
            EXPECT_TRUE(g.at("measurable").get<bool>()) << g.dump();
        }
        // Measurable or not, the truth lies within the bound.
        EXPECT_LE(g.at("energy_low_j").get<double>(), truth) << p.dump();
        EXPECT_GE(g.at("energy_high_j").get<double>(), truth) << p.dump();
    }
    EXPECT_EQ(seen, 2) << r.at("phases").dump();
}

// The issue's own example: `jouleprof run -- sleep 0.05` on a node whose GPU counter changes
// every 100 ms and whose CPU package is a RAPL counter ticking every 1 ms (jp_fake_powercap,
// 40 W): the GPU's energy is not measurable at its sensor's resolution, the package's is,
// with a bound that holds its truth and says so in the text report too.
TEST_F(GpuNode, ASleepShorterThanAnUpdateLeavesTheGpuNotMeasurableAndThePackageBounded) {
    fs.add({"/defaults.toml", "[sensors.estimate]\nenabled = false\n"});
    const auto trace = fs.path("/sleep.jptrace").string();
    const auto r = sh(fmt::format(
        "JP_FAKE_NVML_FIXTURE={} {} --hz 1000 {} -- {} -q --sysfs-root {} -c {} --nvml-library {} "
        "run --no-live -o {} -- sleep 0.05 >/dev/null && {} report --json {}",
        fs.path("/h100.fixture").string(), JP_FAKE_POWERCAP, fs.root().string(), JP_BINARY,
        fs.root().string(), fs.path("/defaults.toml").string(), JP_FAKE_NVML, trace, JP_BINARY,
        trace));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    const auto& run = j.at("groups").at(0).at("runs").at(0);
    const double runtime = run.at("runtime_s").get<double>();
    ASSERT_LT(runtime, 0.095) << "the job ran longer than one GPU update";
    const auto& g = gpu0(run);
    EXPECT_FALSE(g.at("measurable").get<bool>()) << g.dump();
    EXPECT_LE(g.at("energy_low_j").get<double>(), 300.0 * runtime) << g.dump();
    EXPECT_GE(g.at("energy_high_j").get<double>(), 300.0 * runtime) << g.dump();
    const nlohmann::json* pkg = nullptr;
    for (const auto& p : run.at("parts")) {
        pkg = p.at("name") == "cpu0.package" ? &p : pkg;
    }
    ASSERT_NE(pkg, nullptr) << run.at("parts").dump();
    EXPECT_TRUE(pkg->at("measurable").get<bool>()) << pkg->dump();
    const double bound = pkg->at("energy_bound_j").get<double>();
    EXPECT_GT(bound, 0.0) << pkg->dump();
    EXPECT_LT(bound, 0.5 * pkg->at("energy_j").get<double>()) << pkg->dump();
    // The writer's 40 W over the job's span, to its 1 ms ticks (read twice: ±2 ms of 40 W).
    EXPECT_LE(pkg->at("energy_low_j").get<double>(), 40.0 * runtime + 0.08) << pkg->dump();
    EXPECT_GE(pkg->at("energy_high_j").get<double>(), 40.0 * runtime - 0.08) << pkg->dump();
    // The text report says it in words.
    const auto text = sh(fmt::format("{} report {}", JP_BINARY, trace));
    EXPECT_NE(text.out.find("not measurable"), std::string::npos) << text.out;
}

} // namespace
} // namespace jp::test
