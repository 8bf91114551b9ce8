// SPDX-License-Identifier: BSD-3-Clause
// `jouleprof report TRACE...`: the study's table over one or more traces.
#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "cli/json_output.hpp"
#include "cli/trace_selection.hpp"
#include "cli/usage_hints.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "report/carbon.hpp"
#include "report/format.hpp"
#include "report/html/report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <expected>
#include <memory>
#include <string_view>

namespace jp::cli {
namespace {

struct ReportOptions {
    std::vector<std::string> args;                  // as given: TRACE, TRACE:LABEL or DIR
    std::vector<report::TraceSelection> selections; // of args
    std::vector<std::filesystem::path> traces;      // the files and directories, each once
    JsonOutput json;
    bool phase_detail = false;
    bool by_trace = false;
    std::optional<double> threshold_w;
    std::optional<double> idle_util;
    CarbonConfig carbon; // command-line overrides
    std::filesystem::path html;
    bool force = false;
    Nanos wait{0};     // directories: for every node to close its trace
    bool sacct = true; // directories: Slurm's energy beside ours
};

report::SummaryOptions summary_options(const ReportOptions& o, const Config& config) {
    report::SummaryOptions so;
    so.threshold_w = o.threshold_w ? o.threshold_w : config.report.threshold_watts;
    so.idle_util_percent = o.idle_util.value_or(config.report.idle_util_percent.value_or(1.0));
    return so;
}

// The table (text and/or JSON) and the HTML file of summaries of o.traces;
// text_out null: no text (jouleprof -q run).
int print_groups(const Result<std::vector<report::RepeatSummary>>& groups,
                 const ReportOptions& o,
                 const Config& config,
                 std::FILE* text_out) {
    const auto so = summary_options(o, config);
    if (!groups) {
        JP_LOG_ERROR("{}", groups.error().message());
        return groups.error().kind == ErrorKind::config ? 2 : 1; // a label the trace lacks
    }
    const auto carbon = report::merged(config.carbon, o.carbon);
    if (!o.html.empty()) {
        report::HtmlOptions ho;
        ho.carbon = carbon;
        ho.threshold_w = so.threshold_w;
        ho.force = o.force;
        ho.shown = [&o](const std::filesystem::path& trace, const std::string& label) {
            return std::ranges::any_of(o.selections, [&](const report::TraceSelection& s) {
                return report::matches(s, trace, label);
            });
        };
        if (auto r = report::write_html_report(o.traces, o.html, ho); !r) {
            JP_LOG_ERROR("{}", r.error().message());
            return 1;
        }
    }
    report::FormatOptions fo;
    fo.carbon = carbon;
    fo.rated_watts = config.node.rated_watts;
    fo.phase_detail = o.phase_detail;
    if (text_out != nullptr && !o.json.on_stdout()) {
        std::fputs(terminal_safe(report::format_text(*groups, fo)).c_str(), text_out);
        std::fflush(text_out);
    }
    if (!o.json.wanted()) {
        return 0;
    }
    auto j = report::to_json(*groups, fo);
    j.update(report::inputs_json(o.selections));
    return emit_json(o.json, j, o.traces);
}

// Directories hold jobs of several nodes (the Slurm plugin's <jobid>.<stepid>/<node>.jptrace).
bool any_directory(const ReportOptions& o) {
    return std::ranges::any_of(o.traces, [](const std::filesystem::path& p) {
        std::error_code ec;
        return std::filesystem::is_directory(p, ec);
    });
}

// The options a job's merged result cannot honour, or "" (they are refused, not ignored).
// Those given, in words: "--by-trace", "--pue and --price", "--by-trace, --pue and --price".
std::string unfit_for_jobs(const ReportOptions& o) {
    const auto& c = o.carbon;
    std::vector<std::string_view> given;
    for (const auto& [on, name] :
         {std::pair{o.by_trace, "--by-trace"},
          std::pair{c.intensity_g_per_kwh.has_value(), "--carbon-intensity"},
          std::pair{c.pue.has_value(), "--pue"}, std::pair{c.price_per_kwh.has_value(), "--price"},
          std::pair{c.currency.has_value(), "--currency"}}) {
        if (on) {
            given.emplace_back(name);
        }
    }
    std::string out;
    for (std::size_t i = 0; i < given.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == given.size() ? " and " : ", ") + std::string{given[i]};
    }
    return out;
}

int print_report(const ReportOptions& o, const Config& config, std::FILE* text_out) {
    if (o.carbon.currency && !report::merged(config.carbon, o.carbon).price_per_kwh) {
        JP_LOG_ERROR("--currency names the currency of a price: give --price (or [carbon] "
                     "price_per_kwh in the config)");
        return 2;
    }
    if (auto ok = check_report_outputs(o.json, o.html, o.traces, o.force); !ok) {
        JP_LOG_ERROR("{}", ok.error().message());
        return 2;
    }
    // A trace among directories, labelled or not, is refused there: "is a file among directories".
    if (any_directory(o)) {
        if (const auto unfit = unfit_for_jobs(o); !unfit.empty()) {
            JP_LOG_ERROR("{} {} to trace files, not to a job's directory", unfit,
                         unfit.find(" and ") == std::string::npos ? "applies" : "apply");
            return 2;
        }
        return print_job_reports(
            {o.traces, o.json, o.html, o.force, o.wait, o.sacct, summary_options(o, config), true},
            text_out);
    }
    if (o.wait.count() > 0 || !o.sacct) {
        JP_LOG_ERROR("--wait and --no-sacct apply to a job's directory, not to trace files");
        return 2;
    }
    return print_groups(
        report::summarize_traces(o.selections, summary_options(o, config), o.by_trace), o, config,
        text_out);
}

// The arguments read (a trace, TRACE:LABEL or a directory each), and the paths they name.
void check_options(ReportOptions& o) {
    o.selections.clear();
    o.traces.clear();
    for (const auto& a : o.args) {
        o.selections.push_back(parse_selection("report", a, true));
    }
    unify_paths(o.selections);
    for (const auto& s : o.selections) {
        if (std::ranges::find(o.traces, s.trace) == o.traces.end()) {
            o.traces.push_back(s.trace);
        }
    }
    if (o.threshold_w && *o.threshold_w <= 0) {
        throw CLI::ValidationError("--threshold", "must be a positive number of watts");
    }
    if (o.idle_util && (*o.idle_util < 0 || *o.idle_util > 100)) {
        throw CLI::ValidationError("--idle-util", "must be a percentage between 0 and 100");
    }
    if (o.carbon.pue && (*o.carbon.pue < 1.0 || *o.carbon.pue > 10.0)) {
        throw CLI::ValidationError(
            "--pue",
            "must be between 1 and 10 (facility energy / IT energy; 1.1 to 2 in practice)");
    }
    if (o.carbon.intensity_g_per_kwh && *o.carbon.intensity_g_per_kwh < 0) {
        throw CLI::ValidationError("--carbon-intensity", "must not be negative");
    }
    if (o.carbon.price_per_kwh && *o.carbon.price_per_kwh < 0) {
        throw CLI::ValidationError("--price", "must not be negative");
    }
}

} // namespace

namespace {

// A number as people write it on a command line ("5", "+5", "1e3", "0.25"), finite; the error
// says what was wrong, in the caller's words.
std::expected<double, std::string> parse_number(const std::string& text) {
    const char* first = text.c_str();
    const char* const last = first + text.size();
    // from_chars takes no sign of +; a number written with one is still a number.
    if (text.size() > 1 && text[0] == '+' && text[1] != '-' && text[1] != '+') {
        ++first;
    }
    double v = 0;
    const auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec == std::errc::result_out_of_range && ptr == last) {
        return std::unexpected(fmt::format("'{}' is out of the range of a number here", text));
    }
    if (ec != std::errc{} || ptr != last || !std::isfinite(v)) {
        return std::unexpected(fmt::format("expected a finite number, got '{}'", text));
    }
    return v;
}

} // namespace

CLI::Option* add_optional(CLI::App* app,
                          const std::string& name,
                          std::optional<double>& target,
                          const std::string& help) {
    // Parsed here, not by CLI11, whose "Could not convert" names neither what was expected
    // nor the option's own words.
    return app
        ->add_option_function<std::string>(
            name,
            [&target, name](const std::string& text) {
                auto v = parse_number(text);
                if (!v) {
                    throw CLI::ValidationError(name, v.error());
                }
                target = *v;
            },
            help)
        ->type_name("NUMBER");
}

int print_trace_summary(const std::filesystem::path& trace,
                        std::vector<report::RunSummary> runs,
                        const JsonOutput& json,
                        std::FILE* text_out) {
    ReportOptions o;
    o.traces = {trace};
    o.selections = {{trace, std::nullopt}};
    o.json = json;
    return print_groups(report::group_runs(report::measured_runs(std::move(runs)), false), o,
                        Config{}, text_out);
}

void register_report(CLI::App& app, Commands& out) {
    auto o = std::make_shared<ReportOptions>();
    auto* cmd = app.add_subcommand("report", "Summarise trace files as the study's table");
    cmd->add_option("traces", o->args,
                    "Trace files, TRACE:LABEL for one label of a trace, or directories of a "
                    "job's node traces (one result per step)")
        ->required();
    add_json_options(cmd, o->json);
    cmd->add_flag("--phase-detail", o->phase_detail,
                  "JSON: every occurrence of a phase or point (default: up to 100 per name)");
    cmd->add_flag("--by-trace", o->by_trace,
                  "Keep runs of the same label from different traces apart");
    add_optional(cmd, "--threshold", o->threshold_w, "Report time with node power above W watts");
    add_optional(cmd, "--idle-util", o->idle_util,
                 "A GPU at or below this mean utilisation (%) is idle (default 1)");
    add_optional(cmd, "--carbon-intensity", o->carbon.intensity_g_per_kwh,
                 "Grid carbon intensity, g CO2e per kWh (overrides [carbon])");
    add_optional(cmd, "--pue", o->carbon.pue, "Facility PUE (overrides [carbon]; default 1.0)");
    add_optional(cmd, "--price", o->carbon.price_per_kwh, "Energy price per kWh");
    cmd->add_option_function<std::string>(
        "--currency", [o](const std::string& v) { o->carbon.currency = v; },
        "Currency of --price, e.g. EUR");
    cmd->add_option("--html", o->html, "Also write a self-contained HTML report to this file")
        ->check(non_empty_path());
    cmd->add_flag("--force", o->force, "Replace the --html file if it exists");
    add_duration(cmd, "--wait", o->wait,
                 "Directories: wait up to this long for every node to close its trace");
    cmd->add_flag_callback(
        "--no-sacct", [o] { o->sacct = false; },
        "Directories: do not ask sacct for Slurm's energy of each step");
    out.push_back(
        Command{cmd, [o] { check_options(*o); },
                [o](const Context& ctx) { return print_report(*o, ctx.config, stdout); }});
}

} // namespace jp::cli
