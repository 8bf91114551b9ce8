// SPDX-License-Identifier: BSD-3-Clause
#include "report/html/report.hpp"

#include "core/duration.hpp"
#include "jp_version.hpp"
#include "report/format.hpp"
#include "report/html/data.hpp"
#include "report/html/page.hpp"
#include "report/html/sections.hpp"
#include "report/html/svg.hpp"
#include "report/summary.hpp"
#include "sys/output.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <ostream>

namespace jp::report {
namespace {

using html::Colors;
using html::escape;
using html::Page;

// Runs of one label beyond this are in the tables and the energy figure but
// get no profile of their own (each profile reads the whole run).
constexpr std::size_t k_max_profiled_runs = 20;

Error about(const Error& e, const std::string& where) {
    if (e.where == where) {
        return e;
    }
    Error out = e;
    out.where = where;
    out.detail = e.message();
    return out;
}

std::string meta_of(const trace::Reader& r, const std::string& key) {
    auto it = r.meta().find(key);
    return it == r.meta().end() ? std::string{} : it->second;
}

// --- the trace's figures and tables ---

void facts(Page& pg,
           const trace::Reader& reader,
           const std::vector<RepeatSummary>& groups,
           const std::optional<Rating>& rated) {
    auto& b = pg.body;
    b += "<dl class=\"facts\">";
    const auto row = [&](std::string_view k, const std::string& v) {
        if (!v.empty()) {
            b += fmt::format("<dt>{}</dt><dd>{}</dd>", k, v);
        }
    };
    row("File", "<code>" + escape(reader.path().string()) + "</code>");
    row("Host", escape(meta_of(reader, "host")));
    row("Started (UTC)", escape(meta_of(reader, "epoch_utc")));
    if (auto v = meta_of(reader, "jouleprof_version"); !v.empty()) {
        row("Recorded by", "jouleprof " + escape(v));
    }
    if (auto iv = meta_of(reader, "interval_ns"); !iv.empty()) {
        try {
            row("Sampling interval", html::step_text(std::stoll(iv)));
        } catch (...) {
            row("Sampling interval", escape(iv));
        }
    }
    if (!groups.empty() && !groups.front().runs.empty()) {
        row("Node figure", escape(groups.front().runs.front().node_basis));
    }
    if (rated) {
        row("Rated power", fmt::format("{:.0f} W <span class=\"muted\">({})</span>", rated->watts,
                                       escape(rated->source)));
    } else {
        row("Rated power", "not known <span class=\"muted\">(set [node] rated_watts in the config "
                           "to compare peaks with it)</span>");
    }
    std::string chans;
    for (const auto& c : reader.channels()) {
        if (c.quantity == Quantity::utilization) {
            continue;
        }
        chans += fmt::format(
            "{}<code>{}</code> {}{}", chans.empty() ? "" : " · ", escape(c.name),
            to_string(c.provenance),
            c.counted
                ? ""
                : " (not summed" +
                      (c.parent.empty() ? std::string{} : ": within " + escape(c.parent)) + ")");
    }
    row("Channels", chans);
    b += "</dl>";
}

// A label's heading and command. As the text report says it: runs left out (interrupted,
// failed) are named, never hidden.
void label_heading(Page& pg, const RepeatSummary& g, const std::string& box) {
    auto& b = pg.body;
    const auto& first = g.runs.front();
    const auto runs = runs_text(g); // "2 runs; 1 left out: run 2 failed (exit status 1)"
    b += fmt::format("<section class=\"label\" id=\"{}\"><h3>{} <span class=\"muted\">· {} "
                     "measured run{}{}</span></h3>",
                     box, escape(g.label), g.runs.size(), g.runs.size() == 1 ? "" : "s",
                     g.all_failed || !g.left_out.empty()
                         ? escape(runs.substr(runs.find_first_of(",;")))
                         : std::string{});
    if (!first.run.command.empty()) {
        b += "<p class=\"lead\">Command: <code>" + escape(first.run.command) + "</code></p>";
    }
}

Result<void> label_section(Page& pg,
                           trace::Reader& reader,
                           const RepeatSummary& g,
                           const std::optional<Rating>& rated,
                           std::size_t label_no,
                           Colors& colors) {
    auto& b = pg.body;
    const auto box = fmt::format("t{}-l{}", pg.trace_no, label_no);
    label_heading(pg, g, box);
    html::part_table(pg, g, colors);
    if (const auto f = group_footprint(g, pg.opt.carbon)) { // as the text's, per run
        b += std::string{g.runs.size() > 1 ? "<p class=\"lead\">Footprint (per run, mean): "
                                           : "<p class=\"lead\">Footprint: "} +
             escape(format_footprint(*f)) + "</p>";
    }

    const std::size_t n = std::min(g.runs.size(), k_max_profiled_runs);
    if (g.runs.size() > 1) {
        b += fmt::format("<div class=\"runbar\"><label for=\"{0}-sel\">Profile of run</label>"
                         "<select id=\"{0}-sel\" class=\"jp-run-select\" data-for=\"{0}\">",
                         box);
        for (std::size_t i = 0; i < n; ++i) {
            const auto& r = g.runs[i];
            b += fmt::format("<option value=\"{}\">{} ({}, {})</option>", i,
                             r.run.repeat > 0 ? r.run.repeat : static_cast<int>(i + 1),
                             runtime_text(r.runtime_s), energy_text(r.node.energy_j));
        }
        b += "</select>";
        if (g.runs.size() > n) {
            b += fmt::format("<span class=\"muted\">runs after the first {} are in the tables "
                             "only</span>",
                             n);
        }
        b += "</div>";
    }
    const int profile_fig = ++pg.figure;
    const int dist_fig = ++pg.figure;
    std::vector<trace::RunInfo> infos;
    infos.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        infos.push_back(g.runs[i].run);
    }
    auto profiles = html::load_profiles(reader, infos,
                                        {html::plot_width(pg.opt), pg.opt.threshold_w,
                                         rated ? std::optional{rated->watts} : std::nullopt, 60});
    if (!profiles) {
        return std::unexpected(profiles.error());
    }
    // The mean power is the run's energy over its runtime, as the tables and the text give it
    // (the windows leave out a tail shorter than half of one).
    for (std::size_t i = 0; i < n; ++i) {
        (*profiles)[i].distribution.mean_w = g.runs[i].node.avg_w;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const auto& r = g.runs[i];
        const auto* prof = &(*profiles)[i];
        b += fmt::format(R"(<div class="run-panel" data-run="{}"{}>)", i, i == 0 ? "" : " hidden");
        std::string exit;
        if (const auto outcome = outcome_text(r.run); !outcome.empty() && r.run.end_ns) {
            exit = " · " + escape(outcome); // "interrupted (SIGTERM)", "failed (exit status 1)"
        }
        b +=
            fmt::format("<p class=\"run-facts\">Run {} · started {} · runtime {} · node {}, "
                        "{:.1f} W on average{}{}</p>",
                        r.run.repeat > 0 ? r.run.repeat : static_cast<int>(i + 1),
                        r.run.start_utc.empty() ? "–" : escape(r.run.start_utc),
                        runtime_text(r.runtime_s), energy_text(r.node.energy_j), r.node.avg_w, exit,
                        r.complete     ? ""
                        : r.run.end_ns ? " · <b>incomplete</b>: a sensor was lost during the run"
                                       : " · <b>incomplete</b>: the monitor stopped early");
        html::profile_figure(pg, *prof, r, g.label, profile_fig, colors);
        html::phase_table(pg, *prof, r);
        html::distribution_figure(pg, *prof, r, rated, dist_fig);
        b += "</div>";
    }
    b += "</section>";
    return {};
}

Result<void> trace_section(Page& pg, const std::filesystem::path& path) {
    auto reader = trace::Reader::open(path);
    if (!reader) {
        return std::unexpected(about(reader.error(), path.string()));
    }
    auto groups = summarize_trace(*reader);
    if (!groups) {
        return std::unexpected(about(groups.error(), path.string()));
    }
    // TRACE:LABEL: that label's runs only, and the heading says which.
    std::string only;
    if (pg.opt.shown && std::erase_if(*groups, [&](const RepeatSummary& g) {
                            return !pg.opt.shown(path, g.label);
                        }) > 0) {
        for (const auto& g : *groups) {
            only += (only.empty() ? " · only " : ", ") + g.label;
        }
    }
    ++pg.trace_no;
    const auto rated = rated_power(*reader);
    Colors colors;
    for (const auto& g : *groups) { // parts keep one colour in every figure
        for (const auto& p : g.runs.front().parts) {
            colors.of(p.name);
        }
    }
    auto& b = pg.body;
    b += fmt::format(R"(<section class="trace" id="trace-{}"><h2>{}</h2>)", pg.trace_no,
                     escape(path.filename().string() + only));
    facts(pg, *reader, *groups, rated);
    if (groups->empty()) {
        b += "<p class=\"note\">This trace holds no measured run.</p></section>";
        return {};
    }
    html::overview_table(pg, *groups, rated);
    html::energy_figure(pg, *groups, colors);
    for (std::size_t i = 0; i < groups->size(); ++i) {
        if (auto r = label_section(pg, *reader, (*groups)[i], rated, i + 1, colors); !r) {
            return std::unexpected(about(r.error(), path.string()));
        }
    }
    b += "</section>";
    return {};
}

} // namespace

Result<void> write_html_report(const std::vector<std::filesystem::path>& traces,
                               const std::filesystem::path& out,
                               const HtmlOptions& options) {
    if (traces.empty()) {
        return fail(ErrorKind::config, out.string(), "no trace to report on");
    }
    Page pg{options};
    for (const auto& t : traces) {
        if (auto r = trace_section(pg, t); !r) {
            return r;
        }
    }
    std::string title = traces.size() == 1 ? traces.front().filename().string()
                                           : fmt::format("{} traces", traces.size());
    std::string page;
    page.reserve(pg.body.size() + 16'384);
    page += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<meta name=\"generator\" content=\"jouleprof " JP_VERSION "\">";
    page += "<title>jouleprof report: " + escape(title) + "</title><style>";
    page += html::page_style();
    page += "</style></head><body><main><header class=\"page\"><h1>jouleprof energy report</h1>";
    page += "<p class=\"lead\">" + escape(title) +
            " · energy in J, kJ or MJ as its size fits, power in W; mean ± sample standard "
            "deviation over repeats; every "
            "figure marked measured, derived or estimated.</p></header>";
    page += pg.body;
    page += "<footer>Written by jouleprof " JP_VERSION
            ". The page is self-contained: no network access, no external files.</footer>"
            "</main><script>";
    page += html::page_script();
    page += "</script></body></html>\n";
    return sys::write_output(out, {traces, options.force}, [&](std::ostream& o) -> Result<void> {
        o << page;
        return {};
    });
}

} // namespace jp::report
