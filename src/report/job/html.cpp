// SPDX-License-Identifier: BSD-3-Clause
// The job's HTML page: its figures and nodes in tables, the summed power of
// the job over its runtime with the phases, each node's profile stacked below
// it on the same axis, and each node's energy stacked by part.
#include "jp_version.hpp"
#include "report/format.hpp"
#include "report/html/page.hpp"
#include "report/html/svg.hpp"
#include "report/job/format.hpp"
#include "report/units.hpp"
#include "sys/output.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <ostream>

namespace jp::report::job {
namespace {

using html::escape;

std::vector<html::Point>
points_of(const std::vector<double>& watts, std::int64_t step, double span) {
    std::vector<html::Point> out;
    out.reserve(watts.size());
    for (std::size_t k = 0; k < watts.size(); ++k) {
        const double mid = (static_cast<double>(k) + 0.5) * static_cast<double>(step);
        out.push_back({std::min(mid / span, 1.0), watts[k]});
    }
    return out;
}

std::vector<html::PhaseBand> bands(const JobResult& j, double span) {
    std::vector<html::PhaseBand> out;
    for (std::size_t i = 0; i < j.phases.size(); ++i) {
        const auto& p = j.phases[i];
        out.push_back({p.name, static_cast<double>(p.begin_ns) / span,
                       static_cast<double>(p.end_ns) / span, html::part_color(i + 3),
                       fmt::format("{}: on {} of {} nodes, {} in all", p.name, p.nodes,
                                   j.nodes.size(), energy_text(p.energy_j))});
    }
    return out;
}

void tables(std::string& b, const JobResult& j) {
    b += "<dl class=\"facts\">";
    const auto row = [&](std::string_view k, const std::string& v) {
        b += fmt::format("<dt>{}</dt><dd>{}</dd>", k, v);
    };
    const bool shared = j.share && !j.share->all_exclusive();
    if (shared) {
        const auto& sh = *j.share;
        row("Step's share",
            escape(energy_text(sh.job_j()) + bound_note(sh.share.job_bound, sh.job_j()) + ": " +
                   share_split_text(sh)));
        if (const auto others = other_jobs_text(sh); !others.empty()) {
            row("Jobs beside it", escape("jouleprofd: " + others));
        }
    }
    row(shared ? "Nodes' energy" : "Energy",
        escape(j.basis.mark(energy_text(j.energy_j)) + bound_note(j.bound, j.energy_j)));
    row("Average power", power_text(j.avg_w));
    if (j.peak_w) {
        row("Peak power",
            fmt::format("{} <span class=\"muted\">(the nodes' sum over {:.0f} ms)</span>",
                        power_text(*j.peak_w), static_cast<double>(j.step_ns) * 1e-6));
    }
    row("Runtime", runtime_text(j.runtime_s));
    row("Status", escape(j.status) + (j.partial ? " <b>(partial)</b>" : ""));
    row("Clocks", j.clocks_measured
                      ? fmt::format("aligned on the file system's clock within ±{:.1f} ms",
                                    static_cast<double>(j.clock_error_ns) * 1e-6)
                      : std::string{"not measured: each node's own clock"});
    b += "</dl>";
    const auto u = energy_unit(j.energy.max);
    b += fmt::format(
        "<table class=\"overview\"><caption>Each node, on the job's time axis"
        "</caption><thead><tr><th>Node</th><th>Energy [{}]</th><th>Average power</th>"
        "<th>Peak power</th><th>Runtime</th><th>Start [s]</th><th>End [s]</th>"
        "<th class=\"text\">Status</th><th class=\"text\">Node figure</th></tr></thead><tbody>",
        u.name);
    for (const auto& n : j.nodes) {
        const auto& it = n.run.node;
        b += fmt::format(
            "<tr><th>{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3f}</td>"
            "<td>{:.3f}</td><td class=\"text\">{}</td><td class=\"text\">{}</td></tr>",
            escape(n.node),
            escape(basis_of(it).mark(fmt::format("{:.{}f}", it.energy_j * u.per_joule, u.digits))),
            power_text(it.avg_w), it.peak_w ? power_text(*it.peak_w) : "–",
            runtime_text(n.run.runtime_s), static_cast<double>(n.start_ns) * 1e-9,
            static_cast<double>(n.end_ns) * 1e-9, escape(n.ended ? n.run.run.status : "no end"),
            escape(provenance_text(it)));
    }
    b += "</tbody></table>";
    for (const auto& s : j.stragglers) {
        b += fmt::format("<p class=\"note\">Straggler: {} {} {:.2f} s after the median node.</p>",
                         escape(s.node), s.edge == "end" ? "ended" : "started", s.late_s);
    }
    for (const auto& m : j.missing) {
        b += "<p class=\"note\">Missing: " + escape(m) + " (no trace).</p>";
    }
    for (const auto& m : j.unreadable) {
        b += "<p class=\"note\">Unreadable: " + escape(m) + "</p>";
    }
}

void profiles(std::string& b, const JobResult& j, const HtmlJobOptions& o) {
    const double span = j.runtime_s * 1e9;
    if (span <= 0 || j.power.empty()) {
        return;
    }
    html::ProfileFigure f;
    f.id = "job-power";
    f.plot_width = o.plot_width_px;
    f.runtime_s = j.runtime_s;
    f.lines.push_back({"job (all nodes)", std::string{html::k_node_color},
                       points_of(j.power, j.profile_step_ns, span), j.basis.estimated, true,
                       j.basis.words()});
    f.phases = bands(j, span);
    b += "<figure>" + html::profile_svg(f) +
         "<figcaption><b>Figure 1.</b> The job's power: every node's power summed on one "
         "wall-clock axis (each node corrected by its clock offset), over the job's runtime, "
         "with the phases the ranks marked.</figcaption></figure>";
    const auto shown = std::min<std::size_t>(
        j.nodes.size(), static_cast<std::size_t>(std::max(o.max_node_profiles, 0)));
    b += "<section class=\"nodes\"><h3>Each node's power, stacked on the same axis</h3>";
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& n = j.nodes[i];
        html::ProfileFigure g;
        g.id = fmt::format("node-{}", i);
        g.plot_width = o.plot_width_px;
        g.plot_height = 110;
        g.runtime_s = j.runtime_s;
        g.lines.push_back({n.node, html::part_color(i),
                           points_of(n.profile, j.profile_step_ns, span),
                           n.run.node.provenance == Provenance::estimated, false, ""});
        g.phases = bands(j, span);
        b += "<figure>" + html::profile_svg(g) + "</figure>";
    }
    if (shown < j.nodes.size()) {
        b += fmt::format("<p class=\"note\">{} more nodes are in the sum and the table, not drawn "
                         "one by one.</p>",
                         j.nodes.size() - shown);
    }
    b += "</section>";
}

void energy_bars(std::string& b, const JobResult& j, const HtmlJobOptions& o) {
    html::BarsFigure f;
    f.id = "job-energy";
    f.width = o.plot_width_px + 88;
    const auto u = energy_unit(j.energy.max);
    f.y_title = fmt::format("Energy [{}]", u.name);
    std::map<std::string, std::string> colors;
    for (const auto& n : j.nodes) {
        html::Bar bar;
        bar.group = "nodes";
        bar.label = n.node;
        auto add = [&](const Item& it, const std::string& kind) {
            auto [c, fresh] = colors.try_emplace(kind, html::part_color(colors.size()));
            if (fresh) {
                f.legend.push_back({kind, c->second, it.provenance == Provenance::estimated});
            }
            bar.segments.push_back(
                {kind, it.energy_j * u.per_joule, c->second, it.provenance == Provenance::estimated,
                 fmt::format("{} {}: {}", n.node, it.name, energy_text(it.energy_j))});
        };
        for (const auto& p : n.run.parts) {
            add(p, std::string{to_string(p.domain)});
        }
        if (n.run.rest) {
            add(*n.run.rest, "rest");
        }
        bar.total = n.run.node.energy_j * u.per_joule;
        bar.total_basis = basis_of(n.run.node);
        f.bars.push_back(std::move(bar));
    }
    b += "<figure>" + html::stacked_bars_svg(f) +
         fmt::format("<figcaption><b>Figure 2.</b> Each node's energy, stacked by kind of part "
                     "[{}].</figcaption></figure>",
                     u.name);
}

} // namespace

Result<void>
write_html(const JobResult& j, const std::filesystem::path& out, const HtmlJobOptions& o) {
    std::string body;
    tables(body, j);
    profiles(body, j, o);
    energy_bars(body, j, o);
    const auto title =
        j.job_id.empty() ? std::string{"job"} : fmt::format("job {}.{}", j.job_id, j.step);
    std::string page = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                       "<meta name=\"generator\" content=\"jouleprof " JP_VERSION "\">";
    page += "<title>jouleprof: " + escape(title) + "</title><style>";
    page += html::page_style();
    page +=
        "</style></head><body><main><header class=\"page\"><h1>jouleprof: " + escape(title) +
        fmt::format(" on {} node{}</h1></header>", j.nodes.size(), j.nodes.size() == 1 ? "" : "s");
    page += body;
    page += "<footer>Written by jouleprof " JP_VERSION
            ". The page is self-contained: no network access, no external files.</footer>"
            "</main><script>";
    page += html::page_script();
    page += "</script></body></html>\n";
    std::vector<std::filesystem::path> inputs;
    inputs.reserve(j.nodes.size());
    for (const auto& n : j.nodes) {
        inputs.push_back(n.trace);
    }
    return sys::write_output(out, {inputs, o.force}, [&](std::ostream& s) -> Result<void> {
        s << page;
        return {};
    });
}

} // namespace jp::report::job
