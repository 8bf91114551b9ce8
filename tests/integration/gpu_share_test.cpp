// SPDX-License-Identifier: BSD-3-Clause
// A GPU the job holds that other processes use too (docs/attribution.md, "A GPU others use
// too"): the real binary on a stand-in H100 drawing 300 W (100 W of it idle, from the
// config), whose compute processes the test names (JP_FAKE_NVML_PROCESSES), as NVML lists
// them on a real GPU (docs/gpu-check.md). A sleeping job beside a neighbour on its GPU is
// charged the GPU's idle power and none of the neighbour's work; a job and a neighbour
// both on it get a split the report says it cannot make, with a bound from none to all.
#include "fake_sysfs.hpp"
#include "shell.hpp"

#include <csignal>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

namespace jp::test {
namespace {

class GpuShare : public ::testing::Test {
protected:
    void SetUp() override {
        fs.add({"/config.toml", "[sensors.estimate]\nenabled = false\n"
                                "[attribution]\nidle_watts = { \"gpu0\" = 100 }\n"});
        fs.add({"/h100.fixture", "gpu 0 00000000:3B:00.0 model=h100\npower 0 0 300\n"});
        list("");
        // A neighbour outside the job: a process of the test's own, stopped by its PID.
        neighbour = ::fork();
        ASSERT_GE(neighbour, 0);
        if (neighbour == 0) {
            ::pause();
            ::_exit(0);
        }
    }
    void TearDown() override {
        std::filesystem::remove(processes);
        if (neighbour > 0) {
            ::kill(neighbour, SIGKILL);
            ::waitpid(neighbour, nullptr, 0);
        }
    }
    void list(const std::string& lines) const {
        std::ofstream out{processes};
        out << lines;
        ASSERT_TRUE(out.good()) << processes;
    }
    // `report --json` of one run of `command` with GPU 0 held by the job (CUDA_VISIBLE_DEVICES).
    nlohmann::json run(const std::string& command) const {
        const auto trace = fs.path("/t.jptrace").string();
        const auto r = sh(fmt::format(
            "CUDA_VISIBLE_DEVICES=0 JP_FAKE_NVML_FIXTURE={} JP_FAKE_NVML_PROCESSES={} {} -q "
            "--sysfs-root {} -c {} --nvml-library {} run --no-live -o {} -- {} >/dev/null && "
            "{} report --json {}",
            fs.path("/h100.fixture").string(), processes.string(), JP_BINARY, fs.root().string(),
            fs.path("/config.toml").string(), JP_FAKE_NVML, trace, command, JP_BINARY, trace));
        EXPECT_EQ(r.exit_code, 0) << r.out;
        return nlohmann::json::parse(r.out).at("groups").at(0).at("runs").at(0);
    }
    static const nlohmann::json& gpu0(const nlohmann::json& run) {
        for (const auto& p : run.at("attribution").at("parts")) {
            if (p.at("name") == "gpu0") {
                return p;
            }
        }
        throw std::runtime_error("no gpu0 share in " + run.dump());
    }
    static bool said(const nlohmann::json& run, std::string_view what) {
        for (const auto& n : run.at("attribution").at("notes")) {
            if (n.get<std::string>().find(what) != std::string::npos) {
                return true;
            }
        }
        return false;
    }
    FakeSysfs fs;
    // The stand-in's process list: written by the test and the job, so outside the fake tree
    // (whose files an unprivileged user cannot write, as sysfs's).
    std::filesystem::path processes =
        std::filesystem::temp_directory_path() / ("jp-gpu-processes-" + std::to_string(::getpid()));
    pid_t neighbour = -1;
};

TEST_F(GpuShare, TheJobAloneOnItsGpuHasAllOfIt) {
    const auto r = run("sleep 2");
    const auto& g = gpu0(r);
    const double seconds = r.at("runtime_s").get<double>();
    EXPECT_NEAR(g.at("idle_j").get<double>(), 100 * seconds, 0.03 * 100 * seconds) << g.dump();
    // All the rest is the job's (the counter's 100 ms updates move the total by up to
    // 30 J at each edge: the bound holds the truth).
    EXPECT_NEAR(g.at("dynamic_j").get<double>(),
                g.at("node_j").get<double>() - g.at("idle_j").get<double>(), 1e-3);
    EXPECT_NEAR(g.at("other_j").get<double>(), 0, 1e-6);
    EXPECT_LE(g.at("job_low_j").get<double>(), 300 * seconds) << g.dump();
    EXPECT_GE(g.at("job_high_j").get<double>(), 300 * seconds);
    EXPECT_FALSE(said(r, "was shared"));
}

TEST_F(GpuShare, ASleepingJobIsNotChargedItsNeighboursWork) {
    list(fmt::format("0 {}\n", neighbour));
    const auto r = run("sleep 2.5");
    const auto& g = gpu0(r);
    const double seconds = r.at("runtime_s").get<double>();
    // The idle power of the GPU it holds is the job's; the power above it, the neighbour's.
    EXPECT_NEAR(g.at("idle_j").get<double>(), 100 * seconds, 0.03 * 100 * seconds) << g.dump();
    EXPECT_NEAR(g.at("dynamic_j").get<double>(), 0, 1e-6) << g.dump();
    EXPECT_NEAR(g.at("other_j").get<double>(),
                g.at("node_j").get<double>() - g.at("idle_j").get<double>(), 1e-3);
    EXPECT_NEAR(g.at("idle_j").get<double>() + g.at("dynamic_j").get<double>() +
                    g.at("unallocated_j").get<double>() + g.at("other_j").get<double>(),
                g.at("node_j").get<double>(), 1e-3);
    EXPECT_TRUE(said(r, "gpu0 was shared: 1 other process")) << r.at("attribution").dump();
    EXPECT_TRUE(said(r, "went to other processes"));
}

TEST_F(GpuShare, AJobBesideANeighbourGetsASplitWithTheBoundOfNotKnowing) {
    list(fmt::format("0 {}\n", neighbour));
    // The job names its own process once it runs, as NVML would once it made a context.
    const auto r = run(fmt::format("sh -c 'echo \"0 $$\" >> {}; sleep 3'", processes.string()));
    const auto& g = gpu0(r);
    const double seconds = r.at("runtime_s").get<double>();
    const double dynamic = g.at("dynamic_j").get<double>();
    // Half of the power above idle while both were listed (the first listing, at the job's
    // start, may have seen the neighbour alone for up to a second).
    EXPECT_GT(dynamic, 0.5 * 200 * (seconds - 1.2)) << g.dump();
    // At most half of it over the run, and half of what its counter's staleness (it changes
    // every 100 ms) may add at each edge: 9 J over the run alone was seen in CI under load.
    EXPECT_LT(dynamic, 0.5 * 200 * (seconds + 2 * 0.1) + 1) << g.dump();
    // The bound: from none of the power above idle to all of it.
    const double idle = g.at("idle_j").get<double>();
    EXPECT_LE(g.at("job_low_j").get<double>(), idle + 1) << g.dump();
    EXPECT_GE(g.at("job_high_j").get<double>(), idle + 200 * (seconds - 1.2));
    EXPECT_GT(g.at("job_bound_terms").at("shared_gpu").get<double>(), 100 * (seconds - 1.2));
    EXPECT_EQ(g.at("job_bound_dominant"), "who used a shared GPU");
    EXPECT_TRUE(said(r, "NVML cannot say who used a shared GPU")) << r.at("attribution").dump();
}

TEST_F(GpuShare, PidsProcDoesNotShowAreUnknownNotOthers) {
    // 4194304 is above the kernel's largest pid_max: no such process here (as a PID from
    // another namespace would be).
    list("0 4194304\n");
    const auto r = run("sleep 2");
    const auto& g = gpu0(r);
    // Most likely the job's own seen from elsewhere: still the job's, with the bound.
    EXPECT_NEAR(g.at("dynamic_j").get<double>(),
                g.at("node_j").get<double>() - g.at("idle_j").get<double>(), 1e-3);
    EXPECT_LE(g.at("job_low_j").get<double>(), g.at("idle_j").get<double>() + 1) << g.dump();
    EXPECT_TRUE(said(r, "1 process /proc does not show")) << r.at("attribution").dump();
}

} // namespace
} // namespace jp::test
