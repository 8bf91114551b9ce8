// SPDX-License-Identifier: BSD-3-Clause
// `jouleprof study STUDY.toml`: measures every workload × mode × setting of a
// study file (docs/study.md), with warm-ups, repeats and cooldowns, into one
// results file, and prints the study's table. `jouleprof study report
// RESULTS...` prints the table over results files, e.g. one per node type.
#include "cli/command.hpp"
#include "cli/json_output.hpp"
#include "cli/measurement.hpp"
#include "cli/usage_hints.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "process/runner.hpp"
#include "report/html/report.hpp"
#include "report/study.hpp"
#include "sys/new_folders.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <memory>
#include <unistd.h>

namespace jp::cli {
namespace {

struct StudyOptions {
    std::filesystem::path file;
    std::filesystem::path output;
    std::filesystem::path dir;
    std::string node_type;
    std::vector<std::string> set;       // NAME=VALUE
    std::vector<std::string> settings;  // only these
    std::vector<std::string> workloads; // only these
    JsonOutput json;
    bool live = true;
    bool dry_run = false;
    std::filesystem::path html;
    bool force = false;
    std::vector<std::filesystem::path> results; // study report
    CLI::App* report = nullptr;
};

// Everything a study run needs, checked before anything runs.
struct Plan {
    Study study;
    std::string node_type;
    std::filesystem::path dir;
    std::filesystem::path results;
    std::vector<report::StudyCell> cells;
};

std::string host_name() {
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    return name;
}

// --node-type, else the study file's node_type, else the config's [node] name, else the host.
Result<std::string> node_type_for(const StudyOptions& o, const Study& s, const Config& config) {
    std::string type = o.node_type;
    for (const auto& candidate : {s.node_type, config.node.name, std::optional{host_name()}}) {
        if (type.empty() && candidate) {
            type = *candidate;
        }
    }
    if (!is_study_name(type)) {
        return fail(ErrorKind::config, "node type",
                    fmt::format("'{}' may hold only letters, digits, '.', '_' and '-' (give "
                                "--node-type)",
                                type));
    }
    return type;
}

// argv[0] from PATH or, failing that, from the directory of jouleprof itself.
Result<void> find_programs(std::vector<report::StudyCell>& cells) {
    const std::vector<std::filesystem::path> fallback{process::executable_dir()};
    for (auto& cell : cells) {
        auto program = process::find_program(cell.command.front(), fallback);
        if (!program) {
            return fail(ErrorKind::config, cell.label, program.error().message());
        }
        cell.command.front() = *program;
    }
    return {};
}

Result<Plan> make_plan(const StudyOptions& o, const Config& config) {
    auto study = load_study(o.file);
    if (!study) {
        return std::unexpected(study.error());
    }
    if (auto r = apply_overrides(*study, o.set, o.settings); !r) {
        return std::unexpected(r.error());
    }
    if (auto r = keep_workloads(*study, o.workloads); !r) {
        return std::unexpected(r.error());
    }
    auto type = node_type_for(o, *study, config);
    if (!type) {
        return std::unexpected(type.error());
    }
    std::error_code ec;
    Plan p{
        *study,
        *type,
        std::filesystem::absolute(o.dir.empty() ? std::filesystem::path{study->name} : o.dir, ec),
        {},
        {}};
    p.results = o.output.empty() ? p.dir / fmt::format("{}-{}.jptrace", p.study.name, p.node_type)
                                 : o.output;
    auto cells = report::study_cells(p.study, p.dir);
    if (!cells) {
        return std::unexpected(cells.error());
    }
    p.cells = std::move(*cells);
    if (auto r = find_programs(p.cells); !r) {
        return std::unexpected(r.error());
    }
    if (std::filesystem::exists(p.results, ec)) {
        return fail(ErrorKind::config, p.results.string(),
                    "already exists: choose another file with -o or directory with --dir");
    }
    return p;
}

void progress(const std::string& text) {
    if (log::enabled(log::Level::warn)) {
        std::fprintf(stderr, "jouleprof study %s\n", text.c_str());
    }
}

// Runs every cell; returns the exit status that interrupted the study, if any.
std::optional<int> run_cells(MeasurementSession& session, const Plan& p, int& failed) {
    const int per_cell = p.study.warmup + p.study.repeat;
    const auto total = static_cast<int>(p.cells.size()) * per_cell;
    for (std::size_t i = 0; i < p.cells.size(); ++i) {
        const auto& cell = p.cells[i];
        int done = static_cast<int>(i) * per_cell; // skipped runs of a failed cell count as done
        const auto r = session.run_series(
            {cell.label, cell.command, p.study.repeat, p.study.warmup, p.study.cooldown,
             [&](std::string_view kind, int number, int count) {
                 progress(fmt::format("[{}/{}] {} {} {}/{}", ++done, total, cell.label,
                                      kind == "warmup" ? "warm-up" : "repeat", number, count));
             },
             fmt::format("cell {}/{} {}", i + 1, p.cells.size(), cell.label)});
        if (r.interrupted || is_interrupt_status(r.exit_code)) {
            return r.interrupted ? 128 + *r.interrupted : r.exit_code;
        }
        if (!r.failure.empty() || r.exit_code != 0) {
            ++failed;
            JP_LOG_WARN("study: {} failed ({}); going on with the other cells", cell.label,
                        r.failure.empty() ? fmt::format("exit status {}", r.exit_code) : r.failure);
        }
    }
    return std::nullopt;
}

// The table over results files, on stdout (no text when `text` is false or
// the JSON goes there); the JSON where `json` says; the job profiles to html, if given.
int print_table(std::span<const std::filesystem::path> results,
                const JsonOutput& json,
                const std::filesystem::path& html,
                bool force,
                bool text = true) {
    auto table = report::summarize_study(results);
    if (!table) {
        JP_LOG_ERROR("{}", table.error().message());
        return 1;
    }
    if (!html.empty()) {
        report::HtmlOptions ho;
        ho.force = force;
        if (auto r = report::write_html_report({results.begin(), results.end()}, html, ho); !r) {
            JP_LOG_ERROR("{}", r.error().message());
            return 1;
        }
    }
    if (text && !json.on_stdout()) {
        std::fputs(terminal_safe(report::format_study(*table)).c_str(), stdout);
        std::fflush(stdout);
    }
    return json.wanted()
               ? emit_json(json, report::study_json(*table), {results.begin(), results.end()})
               : 0;
}

void print_plan(const Plan& p) {
    std::string out;
    for (const auto& cell : p.cells) {
        out += fmt::format("{}  {}\n", cell.label, join_command(cell.command));
    }
    out += fmt::format("{} cells × ({} warm-up + {} repeats) on node type {} into {}\n",
                       p.cells.size(), p.study.warmup, p.study.repeat, p.node_type,
                       p.results.string());
    std::fputs(terminal_safe(out).c_str(), stdout);
}

std::unique_ptr<MeasurementSession>
open_session(const Plan& p, const StudyOptions& o, const Context& ctx) {
    SessionOptions so;
    so.output = p.results;
    so.interval = p.study.interval;
    so.live = o.live;
    so.job_stdout_to_stderr = true; // stdout carries the table (or JSON) only
    so.meta = {{"command", "jouleprof study " + o.file.string()},
               {"label", p.study.name},
               {"study", p.study.name},
               {"node_type", p.node_type},
               {"study_dir", p.dir.string()}};
    auto session = MeasurementSession::open(std::move(so), ctx.host, ctx.config);
    if (!session) {
        JP_LOG_ERROR("{}", session.error().message());
        return nullptr;
    }
    return std::move(*session);
}

int run_study(const StudyOptions& o, const Context& ctx) {
    auto plan = make_plan(o, ctx.config);
    if (!plan) {
        JP_LOG_ERROR("{}", plan.error().message());
        return 2;
    }
    if (o.dry_run) {
        print_plan(*plan);
        return 0;
    }
    // The study's folder first, so that --json-file and --html may name files inside it; the
    // folders made here are taken away again if the study is refused before it runs.
    auto folders = sys::NewFolders::make(plan->dir);
    if (!folders) {
        JP_LOG_ERROR("{}", folders.error().message());
        return 2;
    }
    const auto refuse = [&](const Error* e) {
        if (e != nullptr) {
            JP_LOG_ERROR("{}", e->message()); // said now, not after hours of runs
        }
        folders->undo();
        return 2;
    };
    if (auto ok = check_report_outputs(o.json, o.html, {o.file, plan->results}, o.force); !ok) {
        return refuse(&ok.error());
    }
    auto session = open_session(*plan, o, ctx);
    if (!session) {
        return refuse(nullptr); // open_session said why
    }
    std::optional<int> interrupted;
    if (plan->study.baseline.count() > 0) {
        progress("idle baseline for " + format_duration(plan->study.baseline));
        if (auto sig = session->baseline(plan->study.baseline)) {
            interrupted = 128 + *sig;
        }
    }
    int failed = 0;
    interrupted = interrupted ? interrupted : run_cells(*session, *plan, failed);
    const bool file_complete = session->finish();
    session.reset(); // the results file is closed before it is read
    if (interrupted) {
        JP_LOG_WARN("interrupted: the remaining runs were not run; runs so far are kept in {}",
                    plan->results.string());
    }
    if (!file_complete) {
        JP_LOG_ERROR("{}: the disk filled during the study: the file and the table below hold "
                     "the runs up to then only",
                     plan->results.string());
    }
    const std::filesystem::path results[] = {plan->results};
    // -q: errors only; the table stays in the results file (`jouleprof study report`).
    const int printed =
        print_table(results, o.json, o.html, o.force, log::enabled(log::Level::warn));
    return interrupted ? *interrupted : (failed > 0 || printed != 0 || !file_complete ? 1 : 0);
}

} // namespace

void register_study(CLI::App& app, Commands& out) {
    auto o = std::make_shared<StudyOptions>();
    auto* cmd = app.add_subcommand("study", "Measure a study file: workloads × modes × settings");
    cmd->add_option("file", o->file, "Study file (TOML; see docs/study.md)")
        ->check(CLI::ExistingFile);
    cmd->add_option("-o,--output", o->output,
                    "Results file (default DIR/<study>-<node type>.jptrace; must not exist)")
        ->check(non_empty_path());
    cmd->add_option("-d,--dir", o->dir, "Output directory, {dir} in commands (default ./<study>)")
        ->check(non_empty_path());
    cmd->add_option("--node-type", o->node_type,
                    "Node type of this machine (default: the study's node_type, the config's "
                    "[node] name, the host name)");
    cmd->add_option("--set", o->set, "NAME=VALUE: a var for every setting, over the file's");
    cmd->add_option("--setting", o->settings, "Run only this setting (repeatable)");
    cmd->add_option("--workload", o->workloads, "Run only this workload's cells (repeatable)");
    add_json_options(cmd, o->json);
    cmd->add_option("--html", o->html, "Also write the job profiles as an HTML report")
        ->check(non_empty_path());
    cmd->add_flag("--force", o->force, "Replace the --html file if it exists");
    cmd->add_flag_callback(
        "--no-live", [o] { o->live = false; }, "No live status line");
    cmd->add_flag("-n,--dry-run", o->dry_run, "Print each cell's command and run nothing");
    o->report = cmd->add_subcommand(
        "report", "The study's table over results files (node types side by side)");
    o->report->add_option("results", o->results, "Results files")
        ->required()
        ->check(CLI::ExistingFile);
    add_json_options(o->report, o->json);
    o->report->add_option("--html", o->html, "Also write the job profiles as an HTML report")
        ->check(non_empty_path());
    o->report->add_flag("--force", o->force, "Replace the --html file if it exists");
    out.push_back(Command{
        cmd,
        [o] {
            if (!o->report->parsed() && o->file.empty()) {
                throw CLI::ValidationError("study",
                                           "give a study file (jouleprof study STUDY.toml) "
                                           "or results (jouleprof study report RESULTS...)");
            }
        },
        [o](const Context& ctx) {
            if (!o->report->parsed()) {
                return run_study(*o, ctx);
            }
            if (auto ok = check_report_outputs(o->json, o->html, o->results, o->force); !ok) {
                JP_LOG_ERROR("{}", ok.error().message());
                return 2;
            }
            return print_table(o->results, o->json, o->html, o->force);
        }});
}

} // namespace jp::cli
