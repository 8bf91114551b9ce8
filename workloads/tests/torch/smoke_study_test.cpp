// SPDX-License-Identifier: BSD-3-Clause
// A study end to end at the smallest size (smoke_study.toml: the form of
// studies/quick.toml, which scripts/demo.sh runs, with tiny jobs): the real
// jouleprof runs the real jouleprof-workload (found next to it) on this
// machine's sensors — on a machine without any, the estimate backend, labelled
// as such — and the results file holds the study's table with the phases the
// workloads marked. One test a workload (`--workload`): each of its jobs starts
// LibTorch under ASan (~2 s before any work), and the two together took a minute.
#include "../temp_dir.hpp"
#include "run_command.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>

namespace jp::workload {
namespace {

using test::Output;

Output run(const std::string& cmd) {
    return test::run_command(cmd);
}

std::set<std::string> phase_names(const nlohmann::json& row) {
    std::set<std::string> names;
    for (const auto& p : row["phases"]) {
        names.insert(p["name"].get<std::string>());
    }
    return names;
}

class SmokeStudy : public testing::TestWithParam<const char*> {};

TEST_P(SmokeStudy, MeasuresEveryCellAndPrintsTheStudysTable) {
    const std::string workload = GetParam();
    test::TempDir dir;
    const auto results = dir.path() / "smoke-ci.jptrace";
    const auto study =
        run(fmt::format("{} study {} --workload {} --dir {} --node-type ci --no-live 2>&1",
                        JP_BINARY, JP_SMOKE_STUDY, workload, dir.path().string()));
    ASSERT_EQ(study.code, 0) << study.text;
    for (const char* column : {"Consumption [", "Average power [W]", "Runtime"}) {
        EXPECT_NE(study.text.find(column), std::string::npos) << study.text;
    }
    EXPECT_NE(study.text.find(fmt::format("jouleprof study [4/4] {}/predict@1-thread", workload)),
              std::string::npos)
        << study.text;

    const auto report = run(fmt::format("{} study report {} --json --html {}", JP_BINARY,
                                        results.string(), (dir.path() / "q.html").string()));
    ASSERT_EQ(report.code, 0) << report.text;
    const auto table = nlohmann::json::parse(report.text);
    ASSERT_EQ(table["rows"].size(), 2U) << report.text; // its train and predict cells
    for (const auto& row : table["rows"]) {
        SCOPED_TRACE(row["label"].get<std::string>());
        EXPECT_TRUE(row["label"].get<std::string>().starts_with(workload));
        EXPECT_TRUE(row["ok"].get<bool>());
        EXPECT_EQ(row["ok_runs"], 2);
        EXPECT_GT(row["node_energy_j"]["mean"].get<double>(), 0.0);
        EXPECT_GT(row["runtime_s"]["mean"].get<double>(), 0.5);
        const auto phases = phase_names(row);
        if (row["mode"] == "train") {
            EXPECT_TRUE(phases.contains("epoch") && phases.contains("train") &&
                        phases.contains("validation"));
            const int epochs = row["label"].get<std::string>().starts_with("energy-lstm") ? 2 : 1;
            for (const auto& p : row["phases"]) {
                if (p["name"] == "epoch") {
                    EXPECT_EQ(p["occurrences"], 2 * epochs); // its epochs × 2 runs
                }
            }
        } else {
            EXPECT_TRUE(phases.contains("inference"));
        }
    }
    EXPECT_TRUE(std::filesystem::file_size(dir.path() / "q.html") > 10000);
}

INSTANTIATE_TEST_SUITE_P(Workloads,
                         SmokeStudy,
                         testing::Values("energy-lstm", "health-vgg"),
                         [](const testing::TestParamInfo<const char*>& p) {
                             return std::string{p.param} == "energy-lstm" ? "EnergyLstm"
                                                                          : "HealthVgg";
                         });

} // namespace
} // namespace jp::workload
