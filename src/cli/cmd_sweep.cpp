// SPDX-License-Identifier: BSD-3-Clause
// `jouleprof sweep --param NAME=V1,V2 [--param ...] [run options] -- CMD ... {NAME} ...`:
// measures the command at every point of the parameter grid, one trace per
// point in one directory, and reports energy per point and the optimal one.
#include "cli/command.hpp"
#include "cli/json_output.hpp"
#include "cli/measurement.hpp"
#include "cli/usage_hints.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "process/runner.hpp"
#include "report/sweep.hpp"
#include "sys/output.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <memory>
#include <ostream>

namespace jp::cli {
namespace {

struct SweepOptions {
    std::vector<std::string> param_specs;
    std::vector<report::SweepParam> params;
    RunOptions run;
    std::filesystem::path dir;
    JsonOutput json;
    bool force = false;
};

void validate(SweepOptions& o) {
    if (o.run.command.empty()) {
        throw CLI::ValidationError("sweep", "no command given: jouleprof sweep --param N=V,... -- "
                                            "CMD ARGS... ({N} is replaced by each value)");
    }
    o.params.clear();
    for (const auto& spec : o.param_specs) {
        auto p = report::parse_param(spec);
        if (!p) {
            throw CLI::ValidationError("--param", p.error().detail);
        }
        if (std::ranges::find(o.params, p->name, &report::SweepParam::name) != o.params.end()) {
            throw CLI::ValidationError("--param", "'" + p->name + "' is given twice");
        }
        for (const auto& v : p->repeated) {
            JP_LOG_WARN("--param {}: {} is listed more than once: measured once (-r N repeats "
                        "every point)",
                        p->name, terminal_safe(v));
        }
        o.params.push_back(std::move(*p));
    }
    const auto points = report::grid_points(o.params);
    if (auto r = report::substitute(o.run.command, points.front()); !r) {
        throw CLI::ValidationError("sweep", r.error().detail);
    }
    if (o.run.interval < std::chrono::milliseconds{1}) {
        throw CLI::ValidationError("--interval", "must be at least 1ms");
    }
    if (o.run.repeat < 1 || o.run.warmup < 0) {
        throw CLI::ValidationError("--repeat", "repeat must be >= 1 and warmup >= 0");
    }
}

std::filesystem::path default_dir() {
    char buf[32];
    std::string stamp;
    for (char c : std::string{format_utc(wall_ns(), buf)}.substr(0, 19)) {
        if (c != '-' && c != ':') {
            stamp += c == 'T' ? '-' : c;
        }
    }
    std::filesystem::path dir = "sweep-" + stamp;
    for (int i = 2; std::filesystem::exists(dir); ++i) {
        dir = fmt::format("sweep-{}-{}", stamp, i);
    }
    return dir;
}

std::optional<report::RepeatSummary> summary_of(const report::SweepPoint& p) {
    auto reader = trace::Reader::open(p.trace);
    if (!reader) {
        return std::nullopt;
    }
    auto groups = report::summarize_trace(*reader);
    if (!groups) {
        JP_LOG_WARN("{}: {}", p.label, groups.error().message());
        return std::nullopt;
    }
    for (auto& g : *groups) {
        if (g.label == p.label && !g.runs.empty()) {
            return std::move(g);
        }
    }
    return std::nullopt;
}

// Runs every point; returns the interrupting exit status, if any.
std::optional<int>
run_points(const SweepOptions& o, std::vector<report::SweepPoint>& out, const Context& ctx) {
    const auto points = report::grid_points(o.params);
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (i > 0 && o.run.cooldown.count() > 0) {
            if (auto sig = process::sleep_unless_signalled(mono_ns() + o.run.cooldown.count())) {
                return 128 + *sig;
            }
        }
        report::SweepPoint p;
        p.label = points[i].label();
        p.command = *report::substitute(o.run.command, points[i]);
        p.trace = o.dir / report::trace_file_name(points[i], i + 1, points.size());
        if (log::enabled(log::Level::warn)) {
            std::fprintf(stderr, "jouleprof sweep [%zu/%zu] %s\n", i + 1, points.size(),
                         terminal_safe(p.label).c_str());
        }
        RunOptions ro = o.run;
        ro.command = p.command;
        ro.label = p.label;
        ro.output = p.trace;
        ro.json = {};
        ro.job_stdout_to_stderr = o.json.on_stdout();
        ro.print_summary = false;
        ro.context = fmt::format("point {}/{} {}", i + 1, points.size(), p.label);
        p.exit_code = run_measurement(ro, ctx.host, ctx.config);
        p.summary = summary_of(p);
        if (p.exit_code != 0) {
            JP_LOG_WARN("sweep: {}: {}; going on with the other points", terminal_safe(p.label),
                        report::point_status(p));
        }
        out.push_back(std::move(p));
        if (is_interrupt_status(out.back().exit_code)) {
            return out.back().exit_code;
        }
    }
    return std::nullopt;
}

int run_sweep(SweepOptions o, const Context& ctx) {
    if (o.dir.empty()) {
        o.dir = default_dir();
    }
    auto folders = sys::prepare_output_dir(o.dir, o.force);
    if (!folders) {
        JP_LOG_ERROR("{}", folders.error().message());
        return 2;
    }
    const auto points = report::grid_points(o.params);
    std::vector<std::filesystem::path> traces;
    traces.reserve(points.size() + 1);
    for (std::size_t i = 0; i < points.size(); ++i) {
        traces.push_back(o.dir / report::trace_file_name(points[i], i + 1, points.size()));
    }
    traces.push_back(o.dir / "sweep.json");
    // Checked once the directory is there (--json-file may name a file in it), never a trace.
    if (auto ok = check_json_output(o.json, traces); !ok) {
        JP_LOG_ERROR("{}", ok.error().message());
        folders->undo(); // only what was made just now
        return 2;
    }
    std::error_code ec;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& t = traces[i];
        if (std::filesystem::exists(t, ec)) {
            JP_LOG_ERROR("{}: already exists, and traces are never replaced: choose another "
                         "directory with -o",
                         t.string());
            return 2;
        }
    }
    std::vector<report::SweepPoint> results;
    const auto interrupted = run_points(o, results, ctx);
    const auto j = report::sweep_json(results, o.dir);
    const auto saved = sys::write_output(
        o.dir / "sweep.json", {{}, o.force}, [&](std::ostream& f) -> Result<void> {
            f << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
            return {};
        });
    if (!saved) {
        JP_LOG_ERROR("{}", saved.error().message());
    }
    // -q: errors only; the table is in sweep.json and `jouleprof report DIR/*.jptrace`.
    if (!o.json.on_stdout() && log::enabled(log::Level::warn)) {
        std::fputs(terminal_safe(report::format_sweep(results, o.dir)).c_str(), stdout);
        std::fflush(stdout);
    }
    const int emitted = o.json.wanted() ? emit_json(o.json, j) : 0;
    if (interrupted) {
        JP_LOG_WARN("interrupted: the remaining points were not run");
        return *interrupted;
    }
    const bool failed =
        std::ranges::any_of(results, [](const auto& p) { return p.exit_code != 0; });
    return failed || !saved || emitted != 0 ? 1 : 0;
}

} // namespace

void register_sweep(CLI::App& app, Commands& out) {
    auto o = std::make_shared<SweepOptions>();
    auto* cmd = app.add_subcommand("sweep", "Measure a command over a grid of parameter values");
    cmd->add_option("-p,--param", o->param_specs,
                    "NAME=V1,V2,... ; several form a grid; {NAME} in the command is replaced")
        ->required();
    add_duration(cmd, "-i,--interval", o->run.interval, "Sampling interval (default 500ms)");
    cmd->add_option("-r,--repeat", o->run.repeat, "Measured repetitions per point (default 1)");
    cmd->add_option("-w,--warmup", o->run.warmup, "Unmeasured warm-up runs per point");
    add_duration(cmd, "--cooldown", o->run.cooldown, "Pause between runs and between points");
    add_duration(cmd, "--baseline", o->run.baseline, "Measure the idle node first, per point");
    cmd->add_option("-o,--output", o->dir,
                    "Directory for the traces (default ./sweep-<time>/; one that holds files "
                    "only with --force)")
        ->check(non_empty_path());
    cmd->add_flag("--force", o->force,
                  "Add to a directory that holds files (traces there are never replaced)");
    add_json_options(cmd, o->json);
    cmd->add_flag_callback(
        "--no-live", [o] { o->run.live = false; }, "No live status line");
    cmd->add_option("command", o->run.command, "The command and its arguments (after --)")
        ->required();
    cmd->positionals_at_end(true);
    out.push_back(Command{cmd, [o] { validate(*o); },
                          [o](const Context& ctx) { return run_sweep(*o, ctx); }});
}

} // namespace jp::cli
