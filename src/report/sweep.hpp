// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Parameter sweeps: a grid of parameter values, the command for each point
// ({name} placeholders substituted), and the table of results with the
// energy-optimal point.
#include "report/summary.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jp::report {

struct SweepParam {
    std::string name;
    std::vector<std::string> values;
    std::vector<std::string> repeated; // values listed more than once: kept once
};

// "batch=512,1024,2048": a name ([A-Za-z_][A-Za-z0-9_]*) and non-empty values;
// a value listed twice is measured once (repeats are -r's).
[[nodiscard]] Result<SweepParam> parse_param(std::string_view spec);

struct GridPoint {
    std::vector<std::pair<std::string, std::string>> values; // in parameter order
    [[nodiscard]] std::string label() const;                 // "batch=512,lr=0.1"
};

// Every combination; the first parameter varies slowest.
[[nodiscard]] std::vector<GridPoint> grid_points(const std::vector<SweepParam>& params);

// Names of the {name} placeholders in argv (in order, each once). "{}" and
// braces around anything but a name are left alone.
[[nodiscard]] std::vector<std::string> placeholders(const std::vector<std::string>& argv);

// argv with every {name} replaced by the point's value; fails on a name the
// point does not have.
[[nodiscard]] Result<std::vector<std::string>> substitute(const std::vector<std::string>& argv,
                                                          const GridPoint& point);

// "03-batch-2048_lr-0.1.jptrace": position (1-based) and a file-safe label.
[[nodiscard]] std::string
trace_file_name(const GridPoint& point, std::size_t position, std::size_t count);

struct SweepPoint {
    std::string label;
    std::vector<std::string> command;
    std::filesystem::path trace;
    int exit_code = 0;
    std::optional<RepeatSummary> summary; // absent when nothing was measured
};

// "ok", or how the point's job ended: from its trace where it has one (which
// knows a signal from an exit status), else from its exit status.
[[nodiscard]] std::string point_status(const SweepPoint& p);

// The successful point with the least mean node energy.
[[nodiscard]] std::optional<std::size_t> energy_optimal(const std::vector<SweepPoint>& points);

// The completed points whose energy differs from the optimum's (`best`) by less than the
// runs' spread and the sensors' bound (report/difference.hpp): the optimum is not resolved
// from them.
[[nodiscard]] std::vector<std::size_t> not_resolved_from(const std::vector<SweepPoint>& points,
                                                         std::size_t best);

[[nodiscard]] std::string format_sweep(const std::vector<SweepPoint>& points,
                                       const std::filesystem::path& dir);
[[nodiscard]] nlohmann::json sweep_json(const std::vector<SweepPoint>& points,
                                        const std::filesystem::path& dir);

} // namespace jp::report
