// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// `jouleprof run`: discover sensors, record a trace, run the command (with
// repeats, warm-ups, a baseline and cooldowns), print the summary. The
// measurement session under it also serves `jouleprof study`, which records
// many series (workload × mode × setting) into one trace.
#include "cli/json_output.hpp"
#include "config/config.hpp"
#include "markers/line_rules.hpp"
#include "report/summary.hpp"
#include "sensors/host.hpp"
#include "trace/reader.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace jp::cli {

struct RunOptions {
    std::vector<std::string> command;
    Nanos interval{std::chrono::milliseconds{500}};
    int repeat = 1;
    int warmup = 0;
    Nanos cooldown{0};
    Nanos baseline{0};
    std::string label = "default";
    std::filesystem::path output;      // empty: a new file in the current directory
    JsonOutput json;                   // --json: the job's stdout goes to stderr
    bool job_stdout_to_stderr = false; // also without json (jouleprof sweep --json)
    bool live = true;                  // live status line when stderr is a terminal
    bool print_summary = true;         // false: the caller reports (jouleprof sweep)
    std::string context;               // for the status line: "point 2/4 batch=1024" (sweep)
    // --mark-regex specs ([KIND:][NAME=]REGEX): the job's output is passed
    // through the monitor and matching lines become markers.
    std::vector<std::string> mark_regex;
};

// Returns the command's exit status (128+N if killed by signal N); 126/127
// when it could not be started; 2 for bad options found before starting.
// One MeasurementSession with one Series.
int run_measurement(const RunOptions& options, const sensors::Host& host, const Config& config);

struct SessionOptions {
    std::filesystem::path output; // empty: a new file in the current directory (or temp dir)
    Nanos interval{std::chrono::milliseconds{500}};
    bool live = true; // live status line when stderr is a terminal
    std::vector<markers::LineRule> mark_rules;
    // The jobs' stdout goes to the monitor's stderr: its stdout carries JSON only.
    bool job_stdout_to_stderr = false;
    // Trace meta besides version, host, epoch, interval, sysfs root and the
    // node model: at least "command" and "label"; jouleprof study adds
    // "study" and "node_type".
    std::map<std::string, std::string> meta;
};

// Runs of one command under one label into a session's trace.
struct Series {
    std::string label;
    std::vector<std::string> command;
    int repeat = 1;
    int warmup = 0;
    Nanos cooldown{0}; // before each run except the session's first
    // Called before each run: kind "warmup" or "measure", its 1-based number
    // among runs of that kind, and how many of that kind the series has.
    std::function<void(std::string_view kind, int number, int count)> before_run;
    // Where the series stands, for the live status line ("cell 7/24 lstm/train@fast").
    std::string context;
};

struct SeriesResult {
    int exit_code = 0;              // of the last run, as a shell reports it
    std::string failure;            // why the command could not be started (exit 126/127)
    std::optional<int> interrupted; // SIGINT/SIGTERM/SIGHUP that ended a cooldown
};

// Sensors discovered once, one trace, one epoch, one sampler, recorder and
// marker socket, for any number of series. A series stops at the first run
// that exits non-zero (its remaining runs are skipped, with a warning).
// Whose energy an in-process run attributes (MeasurementSession::begin_block).
struct BlockJob {
    enum class Kind {
        none,    // nobody's: the node's figures
        self,    // the caller's own process (the Python layer)
        process, // the running job process `pid` is part of (`jouleprof record --job PID`)
    } kind = Kind::none;
    pid_t pid = 0;
    // The job's environment (its GPUs); empty: the monitor's own.
    std::function<std::optional<std::string>(const char*)> env;
};

class MeasurementSession {
public:
    // Discovers the sensors (warning about unreadable ones) and creates the
    // trace; fails when the trace cannot be created.
    static Result<std::unique_ptr<MeasurementSession>>
    open(SessionOptions options, const sensors::Host& host, const Config& config);
    MeasurementSession(const MeasurementSession&) = delete;
    MeasurementSession& operator=(const MeasurementSession&) = delete;
    MeasurementSession(MeasurementSession&&) = delete;
    MeasurementSession& operator=(MeasurementSession&&) = delete;
    ~MeasurementSession();

    // Measures the idle node for `duration` (a run of kind "baseline").
    // Returns the signal that interrupted it, if any.
    std::optional<int> baseline(Nanos duration);
    SeriesResult run_series(const Series& series);
    // Commits everything, summarises every run once and stores the summary
    // rows; call once, after the last run. False when the disk could not take
    // the whole trace: the file holds a part, the summaries cover all of it.
    bool finish();
    // Every run's summary as finish() computed it (from memory when the file
    // could not be written); an error if one could not be summarised.
    [[nodiscard]] const Result<std::vector<report::RunSummary>>& summaries() const;
    [[nodiscard]] const std::filesystem::path& path() const;

    // In-process runs, where the caller itself is the job (the Python layer):
    // a "measure" run labelled `label` begins at an exact edge; one at a time.
    // Returns the run's id (0 when one is already open).
    // job: whose CPU time is followed against the node's for the job's share
    // (docs/attribution.md), if anyone's.
    std::int64_t
    begin_block(const std::string& label, const std::string& command, const BlockJob& job = {});
    // A marker in the open block (kind begin | end | point) at an exact read
    // of every edge sensor, so phases nested in a block have exact edges too.
    // Returns its time (ns since the trace epoch).
    std::int64_t mark_block(std::string_view kind, std::string_view name);
    // Ends the open block at an exact edge ("complete", "failed" or
    // "interrupted") and commits it; returns its run as stored.
    trace::RunInfo end_block(std::string_view status);
    // While a block is open: the environment that lets other processes mark
    // phases into it (`jouleprof mark`, libjouleprof: the marker socket).
    [[nodiscard]] const std::vector<std::pair<std::string, std::string>>& block_env() const;
    // The summary of one run of the trace as written so far (a run still open
    // is summarised up to its last sample).
    Result<report::RunSummary> summarize(std::int64_t run_id);
    // The trace as written so far.
    Result<trace::Reader> reader();

    struct State; // sampler, recorder, marker socket: defined in measurement.cpp

private:
    explicit MeasurementSession(std::unique_ptr<State> state);
    std::unique_ptr<State> m;
};

// The command as one line, arguments with spaces or quotes in single quotes.
[[nodiscard]] std::string join_command(const std::vector<std::string>& argv);

// An exit status that means the user stopped the job (128 + SIGINT, SIGTERM or SIGHUP).
[[nodiscard]] bool is_interrupt_status(int exit_code);

} // namespace jp::cli
