// SPDX-License-Identifier: BSD-3-Clause
#pragma once
#include "cli/json_output.hpp"
#include "config/config.hpp"
#include "core/duration.hpp"
#include "report/summary.hpp"
#include "sensors/host.hpp"
#include "trace/reader.hpp"

#include <cstdio>
#include <filesystem>
#include <vector>

namespace jp::cli {

// `jouleprof sensors [--json]`: every sensor found, its channels, whether it
// can be read and why not. Returns 0.
int list_sensors(const sensors::Host& host, const JsonOutput& json);

// Prints one trace's summary from the summaries of its runs: text on text_out
// (none when null, or when the JSON goes to stdout), JSON where `json` says. Returns 0, or 1 when
// it cannot be summarised or written.
int print_trace_summary(const std::filesystem::path& trace,
                        std::vector<report::RunSummary> runs,
                        const JsonOutput& json,
                        std::FILE* text_out);

// Jobs on several nodes (`report DIR`, `merge`): one merged result per step.
struct JobReportOptions {
    std::vector<std::filesystem::path> inputs; // step directories, directories of steps, or traces
    JsonOutput json;
    std::filesystem::path html; // one step only
    bool force = false;
    Nanos wait{0};                  // how long to wait for every node to close its trace
    bool sacct = true;              // Slurm's ConsumedEnergyRaw beside ours, when sacct has it
    report::SummaryOptions summary; // --threshold, --idle-util
    // report DIR: a directory's traces must be nodes' (recorded for a job), not any runs'.
    bool directories_of_nodes = false;
};
// Returns 0, 1 when nothing could be merged, 2 for options that do not fit.
int print_job_reports(const JobReportOptions& options, std::FILE* text_out);

} // namespace jp::cli
