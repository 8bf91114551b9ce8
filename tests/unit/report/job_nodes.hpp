// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Node traces of one job step as `jouleprof record` writes them, for the merged
// result's tests (job_merge_test.cpp, job_share_test.cpp).
#include "report/job/job.hpp"
#include "trace_builder.hpp"

#include <cstdint>
#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace jp::report::job {

using test::k_s;

inline constexpr std::int64_t k_wall =
    1'790'000'000LL * k_s; // the reference clock at node 0's epoch

struct NodeSpec {
    std::string name{};
    long id = 0;
    std::int64_t true_start_ns = 0;   // on the reference clock, after k_wall
    std::int64_t clock_offset_ns = 0; // the node's clock minus the reference
    double seconds = 10;
    double watts = 100;
    int packages = 1;
    bool dram = false;
    std::vector<std::tuple<double, std::string, std::string>> markers{};
    std::string step = "0";
    int nnodes = 2;
    // The step's CPU use on the node as its monitor recorded it (`record --job`): it was
    // given CPU 0 of 0-1 and used `job_cpu` of the node's 1 busy CPU; none: not recorded.
    std::optional<double> job_cpu{};
    // jouleprofd's ledger in the usage facts (with job_cpu), as the trace holds it.
    std::optional<std::string> ledger{};
};

class JobMerge : public ::testing::Test {
protected:
    std::filesystem::path dir = std::filesystem::path{::testing::TempDir()} /
                                ("jp-job-" + std::to_string(::getpid()) + "-" +
                                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
    void SetUp() override {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
    }
    void TearDown() override { std::filesystem::remove_all(dir); }

    // A node trace as `jouleprof record` writes it: one measured run starting
    // at trace time 0, its epoch read on the node's (offset) clock.
    std::filesystem::path node(const NodeSpec& n) {
        std::vector<Channel> chans;
        for (int p = 0; p < n.packages; ++p) {
            chans.push_back(test::channel(fmt::format("cpu{}.package", p), Domain::cpu_package,
                                          Quantity::energy));
        }
        if (n.dram) {
            chans.push_back(test::channel("cpu0.dram", Domain::dram, Quantity::energy));
        }
        const auto path = dir / (n.name + ".jptrace");
        test::TraceBuilder b(
            path, chans,
            {{"epoch_wall_ns", std::to_string(k_wall + n.true_start_ns + n.clock_offset_ns)},
             {"clock.offset_ns", std::to_string(n.clock_offset_ns)},
             {"clock.offset_error_ns", "2000000"},
             {"clock.reference", "file system of test"},
             {"interval_ns", std::to_string(k_s)},
             {"slurm.job_id", "42"},
             {"slurm.step", "42." + n.step},
             {"slurm.node", n.name},
             {"slurm.node_id", std::to_string(n.id)},
             {"slurm.nnodes", std::to_string(n.nnodes)}});
        const auto per_channel = n.watts / static_cast<double>(chans.size());
        auto run = test::make_run("slurm", n.seconds, test::flat(per_channel));
        run.markers = n.markers;
        const auto id = b.run(run);
        if (n.job_cpu) {
            std::vector<trace::UsageRecord> rows;
            for (int t = 0; t <= static_cast<int>(n.seconds); ++t) {
                const auto ns = static_cast<std::int64_t>(t) * k_s;
                rows.push_back({ns, 0, *n.job_cpu * t, 1.0 * t});
            }
            b.usage(id,
                    fmt::format(R"({{"version":1,"job":"Slurm job 42's cgroup","cpus":[0,1],)"
                                R"("given_cpus":{},"package_of":{{"0":0,"1":0}},)"
                                R"("memory_total":null,"memory_given":null,"gpus_given":null,)"
                                R"("gpu_source":"","idle_w":{{"cpu0.package":10}},"notes":[]{}}})",
                                *n.job_cpu >= 1 ? "[0,1]" : "[0]",
                                n.ledger ? ",\"ledger\":" + *n.ledger : std::string{}),
                    rows);
        }
        return path;
    }

    Result<JobResult> merge() {
        auto traces = node_traces_in(dir);
        EXPECT_TRUE(traces) << traces.error().message();
        return merge_nodes(*traces);
    }
};

} // namespace jp::report::job
