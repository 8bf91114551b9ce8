// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The attribution tests' node: two packages and two GPUs whose power and CPU use are
// known, and the facts a job's usage record carries (tests/unit/report/attribution_test.cpp).
#include "report/summary.hpp"
#include "trace_builder.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace jp::report::test_attribution {

using test::channel;

struct Attribution_ : ::testing::Test {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("jp-attr-" + std::to_string(::getpid()) + ".jptrace");
    void SetUp() override { std::filesystem::remove(path); }
    void TearDown() override { std::filesystem::remove(path); }

    static std::vector<Channel> channels() {
        return {channel("cpu0.package", Domain::cpu_package, Quantity::energy),
                channel("cpu1.package", Domain::cpu_package, Quantity::energy),
                channel("gpu0", Domain::gpu, Quantity::energy),
                channel("gpu1", Domain::gpu, Quantity::energy)};
    }
    // Package 0 fully busy (half of it the job's), package 1 half busy (none the job's).
    static double watts(std::size_t ch, double) {
        constexpr double w[] = {10 + 20 * 1.0, 10 + 20 * 0.5, 50, 60};
        return w[ch];
    }
    static std::vector<trace::UsageRecord> use(double seconds) {
        std::vector<trace::UsageRecord> rows;
        for (int t = 0; t <= static_cast<int>(seconds); ++t) {
            const auto ns = static_cast<std::int64_t>(t) * test::k_s;
            rows.push_back({ns, 0, 0.5 * t, 1.0 * t});
            rows.push_back({ns, 1, 0.0, 0.5 * t});
        }
        return rows;
    }
    static std::string
    facts(std::string_view idle, std::string_view given = "[0]", std::string_view gpus = "[0]") {
        return fmt::format(R"({{"version":1,"job":"test","cpus":[0,1],"given_cpus":{},)"
                           R"("package_of":{{"0":0,"1":1}},"memory_total":null,)"
                           R"("memory_given":null,"gpus_given":{},"gpu_source":"",)"
                           R"("idle_w":{},"notes":[]}})",
                           given, gpus, idle);
    }
    static const PartShare& part(const Attribution& a, std::string_view name) {
        for (const auto& p : a.parts) {
            if (p.name == name) {
                return p;
            }
        }
        throw std::runtime_error("no part " + std::string{name});
    }
    static constexpr std::string_view k_idle =
        R"({"cpu0.package":10,"cpu1.package":10,"gpu0":30,"gpu1":30})";
    // A 10 s run of the job on `chans` drawing `power` (the fixture's by default) at `at`
    // (the fixture's path by default), its CPU use `rows` and its facts `facts_json`,
    // summarised.
    [[nodiscard]] Result<RunSummary> job_run(const std::string& facts_json,
                                             const std::vector<trace::UsageRecord>& rows,
                                             std::vector<Channel> chans = channels(),
                                             const std::filesystem::path& at = {},
                                             const test::Profile& power = watts) const {
        test::TraceBuilder b{at.empty() ? path : at, std::move(chans)};
        const auto id = b.run(test::make_run("job", 10, power));
        b.usage(id, facts_json, rows);
        auto reader = b.reader();
        return summarize_run(reader, reader.runs().front());
    }
};

} // namespace jp::report::test_attribution
