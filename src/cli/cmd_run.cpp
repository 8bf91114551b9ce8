// SPDX-License-Identifier: BSD-3-Clause
#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "cli/job_markers.hpp"
#include "cli/measurement.hpp"
#include "cli/usage_hints.hpp"
#include "core/log.hpp"
#include "core/signal_name.hpp"
#include "core/text.hpp"

#include <memory>

namespace jp::cli {

int run_measurement(const RunOptions& o, const sensors::Host& host, const Config& config) {
    auto rules = parse_mark_regexes(o.mark_regex);
    if (!rules) {
        JP_LOG_ERROR("--mark-regex {}", rules.error());
        return 2;
    }
    std::vector<std::filesystem::path> inputs;
    if (!o.output.empty()) {
        inputs.push_back(o.output); // the trace it writes is never the JSON's file
    }
    if (auto ok = check_json_output(o.json, inputs); !ok) {
        JP_LOG_ERROR("{}", ok.error().message());
        return 2;
    }
    SessionOptions so{o.output,
                      o.interval,
                      o.live,
                      std::move(*rules),
                      o.json.on_stdout() || o.job_stdout_to_stderr,
                      {{"command", join_command(o.command)}, {"label", o.label}}};
    auto session = MeasurementSession::open(std::move(so), host, config);
    if (!session) {
        JP_LOG_ERROR("{}", session.error().message());
        return 2;
    }
    const auto path = (*session)->path();
    std::optional<int> interrupted;
    if (o.baseline.count() > 0) {
        interrupted = (*session)->baseline(o.baseline);
    }
    int exit_code = 0;
    if (!interrupted) {
        const auto r = (*session)->run_series(
            {o.label, o.command, o.repeat, o.warmup, o.cooldown, {}, o.context});
        if (!r.failure.empty()) {
            JP_LOG_ERROR("{}", r.failure);
            // Nothing ran and nothing was measured: no trace is left behind (one
            // with a measured baseline is kept).
            if (o.baseline.count() == 0) {
                session->reset();
                std::error_code ec;
                for (const char* companion : {"", "-wal", "-shm", "-journal"}) {
                    std::filesystem::remove(path.string() + companion, ec);
                }
            }
            return r.exit_code;
        }
        exit_code = r.exit_code;
        interrupted = r.interrupted;
    }
    (*session)->finish(); // an incomplete file is said there; the summary covers everything
    if (interrupted) {
        JP_LOG_WARN("interrupted ({}): runs so far are kept in {}", signal_name(*interrupted),
                    path.string());
        exit_code = 128 + *interrupted;
    }
    // Printed from the summaries finish() computed (from memory when the file
    // could not take everything), not from the trace read again.
    auto summaries = (*session)->summaries();
    session->reset(); // the trace is closed before the summary is printed
    int printed = 0;
    const bool summarised = summaries.has_value();
    if (o.print_summary) {
        if (summaries) {
            // -q: errors only, so no text; the JSON when it was asked for.
            std::FILE* text = log::enabled(log::Level::warn) ? stderr : nullptr;
            printed = print_trace_summary(path, std::move(*summaries), o.json, text);
        } else {
            JP_LOG_ERROR("{}", summaries.error().message());
            printed = 1;
        }
    }
    if (printed != 0 && !summarised) {
        JP_LOG_ERROR("the summary could not be computed; the trace is at {}", path.string());
    }
    // A summary that could not be written (--json-file, said above) fails a good run.
    return printed != 0 && exit_code == 0 ? 1 : exit_code;
}

void register_run(CLI::App& app, Commands& out) {
    auto o = std::make_shared<RunOptions>();
    auto* cmd = app.add_subcommand("run", "Run a command and measure its energy");
    add_duration(cmd, "-i,--interval", o->interval, "Sampling interval (default 500ms)");
    cmd->add_option("-r,--repeat", o->repeat, "Measured repetitions (default 1)");
    cmd->add_option("-w,--warmup", o->warmup, "Unmeasured warm-up runs first (default 0)");
    add_duration(cmd, "--cooldown", o->cooldown, "Pause between runs");
    add_duration(cmd, "--baseline", o->baseline, "Measure the idle node this long first");
    cmd->add_option("-l,--label", o->label, "Label of these runs (node type, setting)");
    cmd->add_option("-o,--output", o->output,
                    "Trace file to write (must not exist), or a directory for a new one "
                    "(default: $JOULEPROF_TRACE_DIR, else ~/.local/state/jouleprof/traces)")
        ->check(non_empty_path());
    add_json_options(cmd, o->json);
    cmd->add_flag_callback(
        "--no-live", [o] { o->live = false; }, "No live status line");
    cmd->add_option("--mark-regex", o->mark_regex,
                    "Mark phases from the job's output: [KIND:][NAME=]REGEX, KIND phase "
                    "(default), begin, end or point (repeatable; see docs/markers.md)")
        ->take_all()
        ->allow_extra_args(false);
    cmd->add_option("command", o->command, "The command and its arguments (after --)")->required();
    cmd->positionals_at_end(true);
    out.push_back(Command{
        cmd,
        [o] {
            if (o->command.empty()) {
                throw CLI::ValidationError(
                    "run", "no command given: jouleprof run [options] -- CMD ARGS...");
            }
            if (o->interval < std::chrono::milliseconds{1}) {
                throw CLI::ValidationError("--interval", "must be at least 1ms");
            }
            if (o->repeat < 1 || o->warmup < 0) {
                throw CLI::ValidationError("--repeat", "repeat must be >= 1 and warmup >= 0");
            }
            if (const char* why = text_problem(o->label)) {
                throw CLI::ValidationError("--label", std::string{"the label "} + why);
            }
            if (o->label.size() > 200) {
                throw CLI::ValidationError("--label", "longer than 200 bytes");
            }
            if (auto rules = parse_mark_regexes(o->mark_regex); !rules) {
                throw CLI::ValidationError("--mark-regex", rules.error());
            }
        },
        [o](const Context& ctx) { return run_measurement(*o, ctx.host, ctx.config); }});
}

} // namespace jp::cli
