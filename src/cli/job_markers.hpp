// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Phases marked by the job, for every run of a session: the marker socket
// (`jouleprof mark`, libjouleprof) and --mark-regex rules over the job's
// output, both stored through the Recorder into the current run.
#include "cli/output_capture.hpp"
#include "cli/recorder.hpp"
#include "markers/line_rules.hpp"
#include "markers/server.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace jp::cli {

// Compiles --mark-regex specs; the error is one line.
[[nodiscard]] std::expected<std::vector<markers::LineRule>, std::string>
parse_mark_regexes(const std::vector<std::string>& specs);

class JobMarkers {
public:
    // Starts the marker socket (a warning if it cannot: the job runs without).
    // stdout_to_stderr: the job's stdout goes to the monitor's stderr (stdout
    // carries the monitor's JSON only).
    JobMarkers(std::vector<markers::LineRule> rules,
               Recorder& recorder,
               std::int64_t epoch_mono_ns,
               const std::filesystem::path& trace,
               bool stdout_to_stderr = false);
    JobMarkers(const JobMarkers&) = delete;
    JobMarkers& operator=(const JobMarkers&) = delete;
    JobMarkers(JobMarkers&&) = delete;
    JobMarkers& operator=(JobMarkers&&) = delete;
    ~JobMarkers();

    struct Job {
        std::vector<std::pair<std::string, std::string>> env;
        process::Stdio stdio;
    };
    // Before the fork of run run_id: the job's extra environment and, with
    // --mark-regex, the pipes for its stdout/stderr.
    Job prepare(std::int64_t run_id);
    // After the fork, the child still at its gate.
    void spawned();
    // At the run's exact start (before the child is released).
    void started(std::int64_t start_mono_ns);
    // At the run's exact end (after the child was reaped): takes the markers
    // still queued and the rest of the output, closes open phases. Also
    // cleans up after a failed start.
    void ended(std::int64_t end_mono_ns);

private:
    void add(markers::Kind kind, std::int64_t t_ns, const std::string& name);

    Recorder& m_recorder;
    std::int64_t m_epoch;
    std::string m_trace;
    std::unique_ptr<markers::Server> m_server;
    markers::LineMarker m_lines;
    std::unique_ptr<OutputCapture> m_capture;
    std::atomic<std::int64_t> m_end_mono{INT64_MAX};
    bool m_stdout_to_stderr = false;
};

} // namespace jp::cli
