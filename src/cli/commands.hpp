// SPDX-License-Identifier: BSD-3-Clause
#pragma once
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
int list_sensors(const sensors::Host& host, bool json);

// Prints one trace's summary: JSON on stdout, or text on text_out. Returns 0,
// or 1 when the trace cannot be read or summarised.
int print_trace_summary(const std::filesystem::path& trace, bool json, std::FILE* text_out);
// The same from the summaries of every run of the trace, already computed.
int print_trace_summary(const std::filesystem::path& trace,
                        std::vector<report::RunSummary> runs,
                        bool json,
                        std::FILE* text_out);

// Jobs on several nodes (`report DIR`, `merge`): one merged result per step.
struct JobReportOptions {
    std::vector<std::filesystem::path> inputs; // step directories, directories of steps, or traces
    bool json = false;
    std::filesystem::path html; // one step only
    bool force = false;
    Nanos wait{0};                  // how long to wait for every node to close its trace
    bool sacct = true;              // Slurm's ConsumedEnergyRaw beside ours, when sacct has it
    report::SummaryOptions summary; // --threshold, --idle-util
};
// Returns 0, 1 when nothing could be merged, 2 for options that do not fit.
int print_job_reports(const JobReportOptions& options, std::FILE* text_out);

} // namespace jp::cli
