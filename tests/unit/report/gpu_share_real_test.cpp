// SPDX-License-Identifier: BSD-3-Clause
// A GPU the job holds beside other processes, replayed from traces `jouleprof run` recorded
// on a real H200 (driver 580.159.04, tests/data/h200/share/, docs/gpu-check.md "Fourth
// check"): the driver's own process listings, through the report's split.
#include "report/summary.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

namespace jp::report {
namespace {

struct RealShare : ::testing::Test {
    std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("jp-real-share-" + std::to_string(::getpid()));
    void SetUp() override { std::filesystem::create_directories(dir); }
    void TearDown() override { std::filesystem::remove_all(dir); }
    // The run of a recorded trace, summarised; its gpu0 share.
    RunSummary summary(const std::string& name) const {
        const auto copy = dir / (name + ".jptrace");
        std::filesystem::copy_file(
            std::string{JP_TEST_SOURCE_DIR} + "/data/h200/share/" + name + ".jptrace", copy);
        auto reader = trace::Reader::open(copy);
        EXPECT_TRUE(reader);
        auto s = summarize_run(*reader, reader->runs().at(0));
        EXPECT_TRUE(s && s->attribution);
        return *s;
    }
    static const PartShare& gpu0(const RunSummary& s) {
        for (const auto& p : s.attribution->parts) {
            if (p.name == "gpu0") {
                return p;
            }
        }
        throw std::runtime_error("no gpu0");
    }
    static bool said(const RunSummary& s, std::string_view what) {
        for (const auto& n : s.attribution->notes) {
            if (n.find(what) != std::string::npos) {
                return true;
            }
        }
        return false;
    }
};

// `sleep 8` holding GPU 0 while a neighbour's matrix products ran on it (root's, and the
// same job as an unprivileged user, to whom NVML listed root's process too): the GPU's
// idle power is the job's, none of the work.
TEST_F(RealShare, ASleepingJobBesideANeighboursWorkOnAnH200) {
    for (const char* name : {"sleeper", "user"}) {
        const auto s = summary(name);
        const auto& g = gpu0(s).share;
        const double seconds = s.runtime_s;
        EXPECT_NEAR(g.job_idle_j, 77.8 * seconds, 0.01 * 77.8 * seconds) << name;
        EXPECT_NEAR(g.job_dynamic_j, 0, 1e-6) << name;
        EXPECT_NEAR(g.other_j, g.node_j() - g.job_idle_j, 1e-3) << name;
        EXPECT_GT(g.other_j, 5 * g.job_idle_j) << name; // the neighbour drew ~600 W
        EXPECT_TRUE(said(s, "gpu0 was shared: 1 other process had it and none of the job's"))
            << name;
    }
}

// The job's matrix products beside a neighbour that held a context and ran nothing: the
// driver cannot say who worked, so the work is split in two while both were listed and the
// job's bound reaches all of the GPU's energy (all of it was the job's work, but for what the
// neighbour's context itself drew).
TEST_F(RealShare, AJobBesideAnIdleContextOnAnH200) {
    const auto s = summary("beside-holder");
    const auto& g = gpu0(s).share;
    ASSERT_TRUE(g.job_bound);
    EXPECT_GT(g.other_j, 0.3 * (g.node_j() - g.job_idle_j));
    EXPECT_LT(g.job_bound->low, g.job_idle_j + 0.5 * g.job_dynamic_j);
    EXPECT_GE(g.job_bound->high, 0.99 * g.node_j());
    EXPECT_GT(g.job_bound->terms.shared, 0.5 * g.node_j());
    EXPECT_TRUE(said(s, "NVML cannot say who used a shared GPU"));
    // The same job alone: no note, and its bound the sensors' alone.
    const auto alone = summary("alone");
    ASSERT_TRUE(gpu0(alone).share.job_bound);
    EXPECT_EQ(gpu0(alone).share.job_bound->terms.shared, 0);
    EXPECT_FALSE(said(alone, "was shared"));
}

} // namespace
} // namespace jp::report
