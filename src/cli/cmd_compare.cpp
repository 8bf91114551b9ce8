// SPDX-License-Identifier: BSD-3-Clause
// `jouleprof compare A B C... [--baseline LABEL_OR_INDEX] [--json]`: runs side by
// side, each a trace file (every label in it) or TRACE:LABEL (one label of it).
#include "cli/command.hpp"
#include "cli/json_output.hpp"
#include "cli/trace_selection.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "report/compare.hpp"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <memory>

namespace jp::cli {
namespace {

struct CompareOptions {
    std::vector<std::string> args;
    std::string baseline;
    JsonOutput json;
};

// The selected groups in the order given (a trace's own labels in trace order).
Result<std::vector<report::RepeatSummary>>
selected_groups(const std::vector<report::TraceSelection>& sel) {
    auto groups = report::summarize_traces(sel, {}, true);
    if (!groups) {
        return std::unexpected(groups.error());
    }
    // Each group once, where it is first asked for (t.jptrace and t.jptrace:a ask twice).
    std::vector<report::RepeatSummary> out;
    std::vector<bool> taken(groups->size(), false);
    for (const auto& s : sel) {
        bool any = false;
        for (std::size_t i = 0; i < groups->size(); ++i) {
            const auto& g = (*groups)[i];
            if (report::matches(s, g.traces.front(), g.label)) {
                any = true;
                if (!taken[i]) {
                    taken[i] = true;
                    out.push_back(g);
                }
            }
        }
        if (!any) {
            return fail(ErrorKind::config, s.trace.string(), "no measured runs");
        }
    }
    return out;
}

int run_compare(const CompareOptions& o) {
    std::vector<report::TraceSelection> sel;
    sel.reserve(o.args.size());
    for (const auto& a : o.args) {
        sel.push_back(parse_selection("compare", a, false));
    }
    unify_paths(sel);
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
                                  (void)parse_selection("compare", a, false);
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
