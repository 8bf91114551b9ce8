// SPDX-License-Identifier: BSD-3-Clause
// Jobs that ran on several nodes: `jouleprof report DIR` (each step directory
// under DIR: <jobid>.<stepid>/<node>.jptrace, as the Slurm plugin writes them)
// and `jouleprof merge TRACE...` (the given traces as the nodes of one step).
#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "cli/usage_hints.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "report/job/format.hpp"

#include <memory>

namespace jp::cli {
namespace {

using report::job::JobResult;

// The merged result of one step, with Slurm's figure beside it.
Result<JobResult> merge_step(const std::vector<std::filesystem::path>& traces,
                             const JobReportOptions& o,
                             const std::string& note) {
    report::job::MergeOptions mo;
    mo.summary = o.summary;
    auto job = report::job::merge_nodes(traces, mo);
    if (!job) {
        return job;
    }
    if (!note.empty()) {
        job->notes.push_back(note);
    }
    if (o.sacct) {
        job->slurm = report::job::slurm_energy(*job, o.wait.count() > 0 ? 3 : 1);
    }
    return job;
}

// A path for a command line a user may paste: single-quoted where it needs it.
std::string for_shell(const std::filesystem::path& p) {
    auto text = p.string();
    while (text.size() > 1 && text.back() == '/') {
        text.pop_back();
    }
    if (text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                               "/._-+:,@") == std::string::npos) {
        return text;
    }
    std::string out = "'";
    for (const char c : text) {
        out += c == '\'' ? std::string{"'\\''"} : std::string{c};
    }
    return out + "'";
}

// A step directory (or, steps: a directory of them) whose traces are runs', not nodes'.
Result<void> refuse_runs(const std::filesystem::path& dir, bool steps) {
    const auto d = for_shell(dir);
    if (steps) {
        return fail(ErrorKind::config, dir.string(),
                    fmt::format("its directories hold traces of runs, not of a job's nodes (none "
                                "was recorded by jouleprof record or the Slurm plugin): report "
                                "them as files (jouleprof report {}/*/*.jptrace)",
                                d));
    }
    return fail(ErrorKind::config, dir.string(),
                fmt::format("holds traces of runs, not of a job's nodes (none was recorded by "
                            "jouleprof record or the Slurm plugin): report them as files "
                            "(jouleprof report {}/*.jptrace), or merge them as one step's nodes "
                            "(jouleprof merge {})",
                            d, d));
}

// The steps to report: each directory's step directories, or the files as one step. For
// report (directories_of_nodes), a step directory whose traces none was recorded for a node is
// refused when named, and left out, said in a warning, among others.
Result<std::vector<std::vector<std::filesystem::path>>> steps_of(const JobReportOptions& o,
                                                                 std::vector<std::string>& notes) {
    std::vector<std::vector<std::filesystem::path>> steps;
    std::vector<std::filesystem::path> files;
    for (const auto& in : o.inputs) {
        std::error_code ec;
        if (!std::filesystem::is_directory(in, ec)) {
            files.push_back(in);
            continue;
        }
        auto dirs = report::job::step_dirs_in(in);
        if (!dirs) {
            return std::unexpected(dirs.error());
        }
        std::size_t taken = 0;
        for (const auto& d : *dirs) {
            std::string note;
            if (o.wait.count() > 0 && !report::job::wait_for_nodes(d, o.wait)) {
                note = fmt::format("waited {:.0f} s for every node to close its trace; reported "
                                   "as they are",
                                   static_cast<double>(o.wait.count()) * 1e-9);
            }
            auto traces = report::job::node_traces_in(d);
            if (!traces) {
                return std::unexpected(traces.error());
            }
            if (o.directories_of_nodes &&
                std::ranges::none_of(*traces, report::job::recorded_for_a_node)) {
                if (dirs->size() == 1) {
                    return std::unexpected(refuse_runs(d, false).error());
                }
                JP_LOG_WARN("{}: left out: its traces are runs', not a job's nodes'", d.string());
                continue;
            }
            steps.push_back(std::move(*traces));
            notes.push_back(note);
            ++taken;
        }
        if (taken == 0) {
            return std::unexpected(refuse_runs(in, true).error());
        }
    }
    if (!files.empty()) {
        if (!steps.empty()) {
            return fail(ErrorKind::config, files.front().string(),
                        "is a file among directories: give step directories or the traces of one "
                        "step");
        }
        steps.push_back(std::move(files));
        notes.emplace_back();
    }
    return steps;
}

} // namespace

int print_job_reports(const JobReportOptions& o, std::FILE* text_out) {
    // Against the directories (or files) named, before any wait for the nodes.
    if (auto ok = check_report_outputs(o.json, o.html, o.inputs, o.force); !ok) {
        JP_LOG_ERROR("{}", ok.error().message());
        return 2;
    }
    std::vector<std::string> notes;
    auto steps = steps_of(o, notes);
    if (!steps) { // a directory of runs, a file among directories: what was given is wrong, 2
        JP_LOG_ERROR("{}", steps.error().message());
        return steps.error().kind == ErrorKind::config ? 2 : 1;
    }
    if (!o.html.empty() && steps->size() != 1) {
        JP_LOG_ERROR("--html writes one step, and {} hold {}: name one step's directory",
                     o.inputs.front().string(), steps->size());
        return 2;
    }
    // The outputs again against the node traces found in them (never one of those, nor their
    // SQLite files), before any is read: --html has exactly one step here.
    std::vector<std::filesystem::path> traces;
    for (const auto& step : *steps) {
        traces.insert(traces.end(), step.begin(), step.end());
    }
    if (auto ok = check_report_outputs(o.json, o.html, traces, o.force); !ok) {
        JP_LOG_ERROR("{}", ok.error().message());
        return 2;
    }
    nlohmann::json all = nlohmann::json::array();
    std::string text;
    for (std::size_t i = 0; i < steps->size(); ++i) {
        auto job = merge_step((*steps)[i], o, notes[i]);
        if (!job) {
            JP_LOG_ERROR("{}", job.error().message());
            return 1;
        }
        if (!o.html.empty()) {
            if (auto r = report::job::write_html(*job, o.html, {.force = o.force}); !r) {
                JP_LOG_ERROR("{}", r.error().message());
                return 1;
            }
        }
        if (o.json.wanted()) {
            all.push_back(report::job::to_json(*job));
        }
        text += (i > 0 ? "\n" : "") + report::job::format_text(*job);
    }
    if (!o.json.on_stdout()) {
        std::fputs(terminal_safe(text).c_str(), text_out);
        std::fflush(text_out);
    }
    return o.json.wanted() ? emit_json(o.json, nlohmann::json{{"steps", std::move(all)}}, traces)
                           : 0;
}

void register_merge(CLI::App& app, Commands& out) {
    auto o = std::make_shared<JobReportOptions>();
    auto* cmd = app.add_subcommand(
        "merge", "One result for a job on several nodes: the given node traces as one step");
    cmd->add_option("traces", o->inputs, "Node traces of one step, or its directory")
        ->required()
        ->check(CLI::ExistingPath);
    add_json_options(cmd, o->json);
    cmd->add_option("--html", o->html, "Also write a self-contained HTML page to this file")
        ->check(non_empty_path());
    cmd->add_flag("--force", o->force, "Replace the --html file if it exists");
    cmd->add_flag_callback(
        "--no-sacct", [o] { o->sacct = false; }, "Do not ask sacct for Slurm's energy of the step");
    out.push_back(Command{cmd, {}, [o](const Context&) { return print_job_reports(*o, stdout); }});
}

} // namespace jp::cli
