// SPDX-License-Identifier: BSD-3-Clause
// A trace of schema version 1, written by jouleprof 0.1 before sample blocks
// (tests/data/trace-v1), reports today as it did then: `report --json` gives
// the figures 0.1 gave for it (v1.report.json, its own output), and `export`
// its samples. If the report's JSON gains fields, compare the figures that
// were there; never regenerate v1.report.json with a newer build.
#include "fake_sysfs.hpp"
#include "shell.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace jp::test {
namespace {

namespace fs = std::filesystem;

// The cells of a CSV line (the fixture's fields hold no quotes or commas).
std::vector<std::string> cells(const std::string& line) {
    std::vector<std::string> out;
    std::size_t from = 0;
    for (std::size_t comma = line.find(','); comma != std::string::npos;
         comma = line.find(',', from)) {
        out.push_back(line.substr(from, comma - from));
        from = comma + 1;
    }
    out.push_back(line.substr(from));
    return out;
}

// The same rows and cells; a number as 0.1 wrote it (the shortest text of its double) and as
// today's 15 significant digits (docs/reports.md, since 2026-11-30) read as the same double
// to within those digits: 0.8365859999999996 and 0.836586.
void expect_same_csv(const std::string& got, const std::string& then) {
    std::istringstream g{got};
    std::istringstream t{then};
    std::string gl;
    std::string tl;
    std::size_t row = 0;
    while (std::getline(t, tl)) {
        ++row;
        ASSERT_TRUE(std::getline(g, gl)) << "row " << row << " is missing: " << tl;
        const auto gc = cells(gl);
        const auto tc = cells(tl);
        ASSERT_EQ(gc.size(), tc.size()) << "row " << row << ": " << gl << " against " << tl;
        for (std::size_t i = 0; i < tc.size(); ++i) {
            char* end = nullptr;
            const double then_v = std::strtod(tc[i].c_str(), &end);
            const bool number = !tc[i].empty() && *end == '\0';
            if (!number || tc[i] == gc[i]) {
                EXPECT_EQ(gc[i], tc[i]) << "row " << row << ", cell " << i;
                continue;
            }
            const double got_v = std::strtod(gc[i].c_str(), &end);
            EXPECT_TRUE(!gc[i].empty() && *end == '\0' &&
                        std::abs(got_v - then_v) <= 1e-14 * std::abs(then_v))
                << "row " << row << ", cell " << i << ": " << gc[i] << " against " << tc[i];
        }
    }
    EXPECT_FALSE(std::getline(g, gl)) << "a row more than then: " << gl;
}

// got with only the object keys that `then` has (recursively): the figures that were
// there, whatever fields the report gained since (a key `then` has and got lacks
// stays missing, so it still fails).
nlohmann::json only_fields_of(const nlohmann::json& got, const nlohmann::json& then) {
    if (got.is_object() && then.is_object()) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& [key, value] : then.items()) {
            if (const auto it = got.find(key); it != got.end()) {
                out[key] = only_fields_of(*it, value);
            }
        }
        return out;
    }
    if (got.is_array() && then.is_array()) {
        nlohmann::json out = nlohmann::json::array();
        for (std::size_t i = 0; i < got.size(); ++i) {
            out.push_back(i < then.size() ? only_fields_of(got[i], then[i]) : got[i]);
        }
        return out;
    }
    return got;
}

// The figures drawn from a counter's readings between a jump and its return:
// since the sampler's estimates there are no longer knots (docs/sensors.md),
// the power over such a span is its average, not the estimate's last power and
// a spike at the return. The fixture's runs have such jumps, so their peaks,
// percentiles and the split between phase occurrences whose edge falls in one
// changed on purpose, as did the power's resolution (step_s: the readings'
// spacing is now the sampler's own, without edge and phase reads); every
// energy over a run, each part's, the phase totals and the average power stay as
// they were.
void drop_drawn_from_jumps(nlohmann::json& j) {
    if (j.is_object()) {
        for (const char* key :
             {"peak_w", "node_peak_w", "p50_w", "p95_w", "p99_w", "mean_w", "step_s"}) {
            j.erase(key);
        }
        if (j.contains("repeat")) {
            j.erase("phases"); // one run's occurrences; its phase_totals stay
        }
    }
    if (j.is_object() || j.is_array()) {
        for (auto& v : j) {
            drop_drawn_from_jumps(v);
        }
    }
}

TEST(TraceCompat, AVersionOneTraceReportsAsItDidThen) {
    const fs::path fixture = fs::path{JP_TEST_SOURCE_DIR} / "data/trace-v1";
    FakeSysfs tmp;
    fs::copy_file(fixture / "v1.jptrace", tmp.root() / "v1.jptrace");
    // Read-only as shipped: a report never writes into its input.
    fs::permissions(tmp.root() / "v1.jptrace", fs::perms::owner_read | fs::perms::group_read);
    const auto report =
        sh(fmt::format("cd {} && {} report --json v1.jptrace", tmp.root().string(), JP_BINARY));
    ASSERT_EQ(report.exit_code, 0) << report.out;
    auto got = nlohmann::json::parse(report.out);
    auto then = nlohmann::json::parse(slurp(fixture / "v1.report.json"));
    drop_drawn_from_jumps(got);
    drop_drawn_from_jumps(then);
    EXPECT_EQ(only_fields_of(got.at("groups"), then.at("groups")), then.at("groups"));
    EXPECT_EQ(got.at("traces"), then.at("traces"));

    const auto csv = sh(
        fmt::format("cd {} && {} export --format csv v1.jptrace", tmp.root().string(), JP_BINARY));
    ASSERT_EQ(csv.exit_code, 0) << csv.out;
    expect_same_csv(csv.out, slurp(fixture / "v1.export.csv"));
}

// Where then's figures and got's differ by more than a part in 10^9 (a release build on the
// GPU machine and this debug build need not round alike), or a key then has is missing. The
// sensors' bound on a figure may have narrowed since (a bound cut at the most a part can draw
// over its window, 2026-11-29), never widened: its ends and half-width are checked so.
void expect_same_figures(const nlohmann::json& got,
                         const nlohmann::json& then,
                         const std::string& at) {
    if (then.is_number() && got.is_number()) {
        const double a = got.get<double>();
        const double b = then.get<double>();
        const double slack = 1e-9 * std::max(std::abs(a), std::abs(b)) + 1e-12;
        if (at.ends_with(".sensor_low")) {
            EXPECT_GE(a, b - slack) << at;
        } else if (at.ends_with(".sensor_high") || at.ends_with(".sensor_bound")) {
            EXPECT_LE(a, b + slack) << at;
        } else {
            EXPECT_LE(std::abs(a - b), slack) << at;
        }
    } else if (then.is_object() && got.is_object()) {
        for (const auto& [key, value] : then.items()) {
            ASSERT_TRUE(got.contains(key)) << at << "." << key;
            expect_same_figures(got.at(key), value, at + "." + key);
        }
    } else if (then.is_array() && got.is_array()) {
        ASSERT_EQ(got.size(), then.size()) << at;
        for (std::size_t i = 0; i < then.size(); ++i) {
            expect_same_figures(got[i], then[i], fmt::format("{}[{}]", at, i));
        }
    } else {
        EXPECT_EQ(got, then) << at;
    }
}

// The reduced study's GPU setting as it ran on a real H200 (docs/gpu-check.md, second
// check): `study report --json` on its trace today gives every figure the release build
// that recorded it gave there (gpu-study.json, its --json-file).
TEST(TraceCompat, TheH200StudyReportsAsItDidOnTheGpu) {
    const fs::path fixture = fs::path{JP_TEST_SOURCE_DIR} / "data/h200";
    FakeSysfs tmp;
    fs::copy_file(fixture / "gpu-study.jptrace", tmp.root() / "gpu-study.jptrace");
    fs::permissions(tmp.root() / "gpu-study.jptrace",
                    fs::perms::owner_read | fs::perms::group_read);
    const auto report = sh(fmt::format("cd {} && {} study report --json gpu-study.jptrace",
                                       tmp.root().string(), JP_BINARY));
    ASSERT_EQ(report.exit_code, 0) << report.out;
    const auto got = nlohmann::json::parse(report.out);
    const auto then = nlohmann::json::parse(slurp(fixture / "gpu-study.json"));
    ASSERT_EQ(then.at("rows").size(), 4U);
    expect_same_figures(got.at("rows"), then.at("rows"), "rows");
    EXPECT_EQ(got.at("node_types"), then.at("node_types"));
}

} // namespace
} // namespace jp::test
