// SPDX-License-Identifier: BSD-3-Clause
#include "report/html/fragment.hpp"

#include "report/html/data.hpp"
#include "report/html/sections.hpp"

#include <fmt/format.h>

namespace jp::report {
namespace {

// The report's look for the pieces a fragment holds, scoped to the fragment.
constexpr std::string_view k_style = R"css(<style>
.jouleprof table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 13px; }
.jouleprof th, .jouleprof td { padding: 3px 8px; text-align: right; white-space: nowrap; }
.jouleprof th:first-child, .jouleprof td:first-child { text-align: left; }
.jouleprof tr.node td { font-weight: 600; }
.jouleprof tr.other td { color: #5f6670; font-style: italic; }
.jouleprof .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; }
.jouleprof .prov { font-size: 11px; padding: 0 6px; border-radius: 8px; background: #eef; }
.jouleprof svg { display: block; max-width: 100%; height: auto; overflow: visible; }
.jouleprof svg text { font-size: 11px; }
.jouleprof figcaption { font-size: 12px; color: #5f6670; }
</style>)css";

} // namespace

Result<std::string> run_fragment(trace::Reader& reader, const RunSummary& run, int plot_width_px) {
    HtmlOptions options;
    options.plot_width_px = plot_width_px;
    html::Page pg{options};
    html::Colors colors;
    for (const auto& p : run.parts) {
        colors.of(p.name);
    }
    const auto group = aggregate_runs(run.run.label, {run});
    pg.body += fmt::format("<div class=\"jouleprof\">{}", k_style);
    pg.body +=
        fmt::format("<p><b>{}</b> · {:.3f} s · node {:.1f} J, {:.1f} W on average</p>",
                    html::escape(run.run.label), run.runtime_s, run.node.energy_j, run.node.avg_w);
    html::part_table(pg, group, colors);
    auto profile = html::load_profile(reader, run.run, {plot_width_px, {}, {}, 60});
    if (!profile) {
        return std::unexpected(profile.error());
    }
    profile->distribution.mean_w = run.node.avg_w; // the run's, as its figures say it
    html::profile_figure(pg, *profile, run, run.run.label, ++pg.figure, colors);
    html::phase_table(pg, *profile, run);
    pg.body += "</div>";
    return std::move(pg.body);
}

} // namespace jp::report
