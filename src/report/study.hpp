// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A study (config/study.hpp) as runs and as a table. The cells to measure
// (workload × mode × setting) with their labels and commands; and the table of
// Caspart et al. (Tables 2/3) over one or more results files: one row per
// workload × mode × node type × setting with consumption, average power and
// runtime (mean ± std), the parts' shares of the energy, the ratio to the first
// node type and the marked phases. The figures come from summary.hpp.
#include "config/study.hpp"
#include "report/summary.hpp"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace jp::report {

// What a run label names: "WORKLOAD/MODE" or "WORKLOAD/MODE@SETTING".
struct StudyKey {
    std::string workload;
    std::string mode;    // empty for a label that is not a study label
    std::string setting; // empty when the study has no settings
    bool operator==(const StudyKey&) const = default;
};

[[nodiscard]] std::string study_label(const StudyKey& key);
// The inverse of study_label; any other label becomes {label, "", ""}.
[[nodiscard]] StudyKey parse_study_label(std::string_view label);

struct StudyCell {
    StudyKey key;
    std::string label;
    std::vector<std::string> command; // placeholders substituted
};

// Every cell in the order it runs: per setting, per workload, the modes in
// order. {dir} is dir, {mode}, {workload}, {setting} and the setting's vars
// their values. Fails on an unknown placeholder or a var some setting lacks,
// naming the workload, mode and setting.
[[nodiscard]] Result<std::vector<StudyCell>> study_cells(const Study& study,
                                                         const std::filesystem::path& dir);

struct StudyShare {
    std::string name;    // "cpu", "dram", "gpu", "other" (counted parts of other kinds), "rest"
    double fraction = 0; // of the node's mean energy
};

// Each kind of counted part's share of the node's energy in figures (a
// group's or one of its phases'), in the order cpu, dram, gpu, other, rest;
// the kinds come from the parts' domains in the group's runs.
[[nodiscard]] std::vector<StudyShare> energy_shares(const FigureStats& figures,
                                                    const RepeatSummary& group);

struct StudyRow {
    StudyKey key;
    std::string node_type;
    std::size_t runs = 0;             // measured runs, failed ones included
    std::vector<int> failures;        // exit status (128+N: signal N) of each failed run
    std::vector<int> warmup_failures; // likewise of warm-ups (the cell then has no measured run)
    std::optional<RepeatSummary> ok;  // the runs that succeeded; absent when none did
    std::vector<StudyShare> shares;
    // To the first row of the same workload and mode (and setting, when the
    // table has several node types): the first node type, or the first setting.
    std::optional<double> energy_ratio;
    std::optional<double> runtime_ratio;
};

struct StudyTable {
    std::vector<std::string> node_types; // in order of first appearance
    std::vector<StudyRow>
        rows; // by workload, mode, setting, node type, in order of first appearance
    std::vector<std::string> traces;
};

// What the table needs of a results file besides its measured runs.
struct TraceFacts {
    std::string node_type;
    std::vector<trace::RunInfo> failed_warmups;
};
[[nodiscard]] TraceFacts trace_facts(const trace::Reader& reader);

// The table over groups of runs as summarize_traces(..., by_trace = true)
// makes them, with the facts of each trace (by path). Groups of the same
// node type and label pool their runs.
[[nodiscard]] StudyTable study_table(std::vector<RepeatSummary> groups,
                                     const std::map<std::string, TraceFacts>& traces);

// Reads the results files; errors name the file.
[[nodiscard]] Result<StudyTable> summarize_study(std::span<const std::filesystem::path> traces,
                                                 const SummaryOptions& options = {});

[[nodiscard]] std::string format_study(const StudyTable& table);
[[nodiscard]] nlohmann::json study_json(const StudyTable& table);

} // namespace jp::report
