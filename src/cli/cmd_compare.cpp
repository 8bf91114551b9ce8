// SPDX-License-Identifier: BSD-3-Clause
// `jouleprof compare A B C... [--baseline LABEL_OR_INDEX] [--json]`: runs side by
// side, each a trace file (every label in it) or TRACE:LABEL (one label of it).
#include "cli/command.hpp"
#include "cli/json_output.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "report/compare.hpp"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <memory>

namespace jp::cli {
namespace {

struct Selection {
    std::filesystem::path trace;
    std::optional<std::string> label; // all labels when absent
};

Selection parse_selection(const std::string& arg) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(arg, ec)) {
        return {arg, std::nullopt};
    }
    const auto colon = arg.rfind(':');
    if (colon != std::string::npos && std::filesystem::is_regular_file(arg.substr(0, colon), ec)) {
        return {arg.substr(0, colon), arg.substr(colon + 1)};
    }
    // Say what is wrong with it: a file that is not there is the likeliest.
    const auto file = colon != std::string::npos && !std::filesystem::exists(arg, ec)
                          ? arg.substr(0, colon)
                          : arg;
    const auto* const why = !std::filesystem::exists(file, ec)        ? "no such file"
                            : std::filesystem::is_directory(file, ec) ? "a directory"
                                                                      : "not a regular file";
    throw CLI::ValidationError("compare", "'" + arg +
                                              "' is neither a trace file nor TRACE:LABEL (" + file +
                                              ": " + why + ")");
}

struct CompareOptions {
    std::vector<std::string> args;
    std::string baseline;
    JsonOutput json;
};

// The selected groups in the order given (a trace's own labels in trace order).
Result<std::vector<report::RepeatSummary>> selected_groups(const std::vector<Selection>& sel) {
    std::vector<std::filesystem::path> paths;
    for (const auto& s : sel) {
        if (std::ranges::find(paths, s.trace) == paths.end()) {
            paths.push_back(s.trace);
        }
    }
    auto groups = report::summarize_traces(paths, {}, true);
    if (!groups) {
        return std::unexpected(groups.error());
    }
    std::vector<report::RepeatSummary> out;
    for (const auto& s : sel) {
        const auto before = out.size();
        for (const auto& g : *groups) {
            if (g.traces.front() == s.trace.string() && (!s.label || *s.label == g.label)) {
                out.push_back(g);
            }
        }
        if (out.size() == before) {
            // The labels it has, to pick from.
            std::vector<std::string> labels;
            for (const auto& g : *groups) {
                if (g.traces.front() == s.trace.string() &&
                    std::ranges::find(labels, g.label) == labels.end()) {
                    labels.push_back(g.label);
                }
            }
            const auto has = labels.empty()
                                 ? std::string{}
                                 : fmt::format(" (its labels: {})", fmt::join(labels, ", "));
            return fail(ErrorKind::config, s.trace.string(),
                        (s.label ? "no measured runs labelled '" + *s.label + "'"
                                 : std::string{"no measured runs"}) +
                            has);
        }
    }
    return out;
}

int run_compare(const CompareOptions& o) {
    std::vector<Selection> sel;
    sel.reserve(o.args.size());
    for (const auto& a : o.args) {
        sel.push_back(parse_selection(a));
    }
    std::vector<std::filesystem::path> inputs;
    inputs.reserve(sel.size());
    for (const auto& s : sel) {
        inputs.push_back(s.trace);
    }
    if (auto ok = check_json_output(o.json, inputs); !ok) {
        JP_LOG_ERROR("{}", ok.error().message());
        return 2;
    }
    auto groups = selected_groups(sel);
    if (!groups) {
        JP_LOG_ERROR("{}", groups.error().message());
        return groups.error().kind == ErrorKind::config ? 2 : 1;
    }
    auto c = report::compare_groups(*groups, o.baseline);
    if (!c) {
        JP_LOG_ERROR("{}", c.error().message());
        return 2;
    }
    if (!o.json.on_stdout()) {
        std::fputs(terminal_safe(report::format_comparison(*c)).c_str(), stdout);
        std::fflush(stdout);
    }
    return o.json.wanted() ? emit_json(o.json, report::comparison_json(*c), inputs) : 0;
}

} // namespace

void register_compare(CLI::App& app, Commands& out) {
    auto o = std::make_shared<CompareOptions>();
    auto* cmd = app.add_subcommand("compare", "Put runs side by side against a baseline");
    cmd->add_option("runs", o->args, "Trace files, or TRACE:LABEL for one label of a trace")
        ->required();
    cmd->add_option("--baseline", o->baseline,
                    "Label, name or 1-based position of the baseline (default: the first)");
    add_json_options(cmd, o->json);
    out.push_back(Command{cmd,
                          [o] {
                              for (const auto& a : o->args) {
                                  (void)parse_selection(a);
                              }
                          },
                          [o](const Context&) { return run_compare(*o); }});
}

void register_analysis(CLI::App& app, Commands& out) {
    for (auto* add : {register_compare, register_sweep, register_export}) {
        add(app, out);
    }
}

} // namespace jp::cli
