// SPDX-License-Identifier: BSD-3-Clause
// export: a trace's samples, markers and summary as CSV and as nested JSON.
#include "fake_sysfs.hpp"
#include "report/export.hpp"
#include "trace_builder.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <sstream>

namespace jp::report {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in{text};
    for (std::string line; std::getline(in, line);) {
        out.push_back(line);
    }
    return out;
}

// A CSV row's cells, a quoted cell whole and every empty cell kept (RFC 4180, no doubled
// quotes here).
std::vector<std::string> cells_of(const std::string& row) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (const char c : row) {
        if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

class Export : public ::testing::Test {
protected:
    void SetUp() override {
        test::RunSpec spec;
        spec.label = "gpu,node"; // a comma: quoted in CSV
        spec.seconds = 4;
        spec.watts = [](std::size_t ch, double) { return ch == 0 ? 300.0 : 120.0; };
        spec.markers = {{1, "begin", "train"}, {3, "end", "train"}};
        builder.run(spec);
    }
    test::FakeSysfs fs;
    test::TraceBuilder builder{fs.path("/x.jptrace"),
                               {test::channel("node", Domain::node, Quantity::energy),
                                test::channel("gpu0", Domain::gpu, Quantity::power)}};
};

TEST_F(Export, SamplesCsvHasOneRowPerSample) {
    auto r = builder.reader();
    std::ostringstream out;
    ASSERT_TRUE(write_samples_csv(r, out));
    const auto lines = lines_of(out.str());
    ASSERT_EQ(lines.size(), 1U + 2 * 5); // header, 2 channels × samples at 0..4 s
    EXPECT_EQ(lines[0], "run_id,label,channel,quantity,unit,t_s,value,flags");
    EXPECT_EQ(lines[1], "1,\"gpu,node\",node,energy,J,0.000000000,0,0");
    EXPECT_EQ(lines[5], "1,\"gpu,node\",node,energy,J,4.000000000,1200,0");
    EXPECT_EQ(lines[6], "1,\"gpu,node\",gpu0,power,W,0.000000000,120,0");
}

TEST_F(Export, MarkersAndSummaryCsv) {
    auto r = builder.reader();
    std::ostringstream markers;
    ASSERT_TRUE(write_markers_csv(r, markers));
    const auto m = lines_of(markers.str());
    ASSERT_EQ(m.size(), 3U);
    EXPECT_EQ(m[0], "run_id,label,t_s,kind,name");
    EXPECT_EQ(m[1], "1,\"gpu,node\",1.000000000,begin,train");
    std::ostringstream summary;
    ASSERT_TRUE(write_summary_csv(r, summary));
    const auto s = lines_of(summary.str());
    EXPECT_EQ(s[0], "run_id,label,kind,repeat,phase,item,energy_j,avg_w,peak_w,runtime_s,"
                    "provenance,counted,energy_low_j,energy_high_j,bound_dominant,measurable,"
                    "job_j,job_low_j,job_high_j,bound_assumes,peak_low_w,peak_high_w,peak_assumes,"
                    "lower_bound,never_changed,lost_at_s");
    const auto header = cells_of(s[0]);
    // A row's cell by its column's name.
    const auto cell = [&](const std::string& row, const char* column) {
        const auto cells = cells_of(row);
        EXPECT_EQ(cells.size(), header.size()) << row;
        const auto at =
            static_cast<std::size_t>(std::ranges::find(header, column) - header.begin());
        return at < cells.size() ? cells[at] : std::string{"(no such cell)"};
    };
    // Whole run: node, gpu0, rest; then the train phase: node, gpu0, rest.
    ASSERT_EQ(s.size(), 7U) << summary.str();
    EXPECT_EQ(s[1].substr(0, s[1].find(",300,")), "1,\"gpu,node\",measure,1,,node,1200");
    EXPECT_NE(s[3].find(",rest,720,180,"), std::string::npos) << s[3];
    EXPECT_NE(s[4].find(",train,node,600,300,"), std::string::npos) << s[4];
    EXPECT_NE(s[4].find(",2,measured,1"), std::string::npos) << s[4];
    // The node is a counter, gpu0 a power reading: each its bound, which holds the figure
    // (gpu0's read once a second, so its last second may lie after its last reading's
    // instant: anything up to 2 × 120 W there). No usage: no job's share.
    EXPECT_LE(std::stod(cell(s[1], "energy_low_j")), 1200);
    EXPECT_GE(std::stod(cell(s[1], "energy_high_j")), 1200);
    EXPECT_EQ(cell(s[1], "measurable"), "1");
    // 15 significant digits: the low end reads 359.997, not its double's 359.99699999999996.
    EXPECT_EQ(s[2].substr(s[2].find(",measured,1,") + 12),
              "359.997,600.003,edge staleness,1,,,,peak;field,,,,0,0,")
        << s[2];
    // What each bound rests on, as JSON's bound_assumes_* name it: the node counter's
    // highest power (no limit recorded), gpu0's too and its power between readings.
    EXPECT_EQ(cell(s[1], "bound_assumes"), "peak") << s[1];
    // Where the sensors' bounds put the node's true peak (a counter at 300 W): around it,
    // and what that rests on (the same highest power). gpu0, a power reading, has none
    // (above: docs/uncertainty.md says why).
    EXPECT_LE(std::stod(cell(s[1], "peak_low_w")), 300) << s[1];
    EXPECT_GE(std::stod(cell(s[1], "peak_high_w")), 300) << s[1];
    EXPECT_EQ(cell(s[1], "peak_assumes"), "peak") << s[1];
    // The phase's node row has its own peak range, as the run's has (it was left empty).
    EXPECT_LE(std::stod(cell(s[4], "peak_low_w")), 300) << s[4];
    EXPECT_GE(std::stod(cell(s[4], "peak_high_w")), 300) << s[4];
    EXPECT_EQ(cell(s[4], "peak_assumes"), "peak") << s[4];
    // What the table says beside the provenance: the node here is measured (not the sum of
    // its parts), nothing stuck or lost.
    EXPECT_EQ(cell(s[1], "lower_bound"), "0");
    EXPECT_EQ(cell(s[1], "never_changed"), "0");
    EXPECT_EQ(cell(s[1], "lost_at_s"), "");
}

// On a real H200 run: the node is the sum of its parts (no node meter) and psys never moved;
// the summary CSV says both, as the table's provenance does.
TEST_F(Export, TheSummaryCsvSaysALowerBoundAndACounterThatNeverMoved) {
    const auto path = fs.path("/phases.jptrace");
    std::filesystem::copy_file(std::string{JP_TEST_SOURCE_DIR} + "/data/h200/phases.jptrace", path);
    auto r = trace::Reader::open(path);
    ASSERT_TRUE(r) << r.error().message();
    std::ostringstream summary;
    ASSERT_TRUE(write_summary_csv(*r, summary));
    const auto s = lines_of(summary.str());
    const auto header = cells_of(s.at(0));
    const auto column = [&](const char* name) {
        return static_cast<std::size_t>(std::ranges::find(header, name) - header.begin());
    };
    std::map<std::string, std::vector<std::string>> whole_run; // item → cells, phase empty
    for (std::size_t i = 1; i < s.size(); ++i) {
        auto cells = cells_of(s[i]);
        ASSERT_EQ(cells.size(), header.size()) << s[i];
        if (cells[column("phase")].empty()) {
            whole_run[cells[column("item")]] = std::move(cells);
        }
    }
    ASSERT_TRUE(whole_run.contains("node") && whole_run.contains("psys")) << summary.str();
    EXPECT_EQ(whole_run["node"][column("lower_bound")], "1");
    EXPECT_EQ(whole_run["node"][column("never_changed")], "0");
    EXPECT_EQ(whole_run["psys"][column("never_changed")], "1");
    EXPECT_EQ(whole_run["psys"][column("lower_bound")], "0");
}

TEST_F(Export, JsonIsNested) {
    auto r = builder.reader();
    auto j = trace_json(r);
    ASSERT_TRUE(j);
    EXPECT_EQ((*j)["channels"].size(), 2U);
    const auto& run = (*j)["runs"][0];
    EXPECT_EQ(run["label"], "gpu,node");
    EXPECT_EQ(run["markers"].size(), 2U);
    EXPECT_EQ(run["samples"]["node"]["value"].size(), 5U);
    EXPECT_DOUBLE_EQ(run["samples"]["node"]["value"][4].get<double>(), 1200);
    EXPECT_DOUBLE_EQ(run["samples"]["gpu0"]["t_s"][2].get<double>(), 2);
    EXPECT_DOUBLE_EQ(run["summary"]["node"]["energy_j"].get<double>(), 1200);
    EXPECT_EQ(run["summary"]["phases"][0]["name"], "train");
    EXPECT_EQ((*j)["meta"]["format"], "jouleprof-trace");
}

TEST(ExportCsv, FieldsAreQuotedOnlyWhenNeeded) {
    EXPECT_EQ(csv_field("plain"), "plain");
    EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

// A marker named by the job goes into a spreadsheet: what would be a formula stays text.
TEST(ExportCsv, WhatASpreadsheetWouldRunStaysText) {
    EXPECT_EQ(csv_field("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
    EXPECT_EQ(csv_field("+1"), "'+1");
    EXPECT_EQ(csv_field("-cmd|' /C calc'!A0"), "'-cmd|' /C calc'!A0");
    EXPECT_EQ(csv_field("@SUM(A1)"), "'@SUM(A1)");
    EXPECT_EQ(csv_field("\t=1"), "'\t=1");
    EXPECT_EQ(csv_field("a=b"), "a=b");
    EXPECT_EQ(csv_field(""), "");
}

} // namespace
} // namespace jp::report
