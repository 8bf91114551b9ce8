// SPDX-License-Identifier: BSD-3-Clause
#include "core/duration.hpp"
#include "report/format.hpp"
#include "report/html/sections.hpp"

#include <fmt/format.h>

namespace jp::report::html {
namespace {

const Item* find_item(const RunSummary& run, const std::string& name) {
    if (name == "rest") {
        return run.rest ? &*run.rest : nullptr;
    }
    for (const auto& p : run.parts) {
        if (p.name == name) {
            return &p;
        }
    }
    return nullptr;
}

// Half the sensors' bound on a mean, its ends and largest term in the tooltip.
std::string sensor_td(const Stat& s, const EnergyUnit& u) {
    if (!s.sensor) {
        return "<td>–</td>";
    }
    return fmt::format("<td title=\"{:.4g}–{:.4g} J ({}{})\">{}</td>", s.sensor->low,
                       s.sensor->high, escape(s.sensor->dominant),
                       escape(assumptions_text(s.sensor->assumed)), escape(sensor_pm(s, u)));
}

} // namespace

// The study's table: one row per label. The node's figures; where a label's runs were each
// given a share of a shared node, the job's share beside them (the text table of `study`,
// `compare` and `sweep` leads with the share; `report`'s gives both).
void overview_table(Page& pg,
                    const std::vector<RepeatSummary>& groups,
                    const std::optional<Rating>& rated) {
    auto& b = pg.body;
    double largest = 0;
    bool shares = false;
    for (const auto& g : groups) {
        largest = std::max(largest, g.node_energy_j.mean);
        shares = shares || g.job_energy_j.has_value();
    }
    const auto u = energy_unit(largest);
    b += fmt::format(
        "<table class=\"overview\"><caption>Per label: mean ± sample standard deviation over the "
        "measured runs{}</caption><thead><tr><th>Label</th><th>Runs</th>"
        "<th>{}Consumption [{}]</th><th>± sensors</th><th>{}Average power [W]</th>{}"
        "<th>Runtime</th><th>Peak power [W]</th><th class=\"text\">Node figure</th>"
        "</tr></thead><tbody>",
        shares ? "; the node's consumption and power, and the job's share of its shared node "
                 "where its runs were attributed (docs/attribution.md)"
               : "",
        shares ? "Node " : "", u.name, shares ? "Node " : "",
        shares ? fmt::format("<th>Job's share [{}]</th><th>± sensors</th>"
                             "<th>Job's average power [W]</th>",
                             u.name)
               : "");
    for (const auto& g : groups) {
        const auto& first = g.runs.front();
        std::string peak = g.node_peak_w.n > 0 ? mean_pm(g.node_peak_w, 1, 1) : "–";
        if (g.node_peak_w.n > 0 && rated && rated->watts > 0) {
            peak += fmt::format(" ({:.0f} % of rated)", 100 * g.node_peak_w.mean / rated->watts);
        }
        std::string share;
        if (shares) {
            share = g.job_energy_j
                        ? fmt::format("<td>{}</td>{}<td>{}</td>", energy_pm(*g.job_energy_j, u),
                                      sensor_td(*g.job_energy_j, u),
                                      g.job_avg_w ? mean_pm(*g.job_avg_w, 1, 1) : "–")
                        : "<td>–</td><td>–</td><td>–</td>";
        }
        b +=
            fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td>{}<td>{}</td><td>{}</td>"
                        "<td class=\"text\">{}</td></tr>",
                        escape(g.label), g.runs.size(), energy_pm(g.node_energy_j, u),
                        sensor_td(g.node_energy_j, u), mean_pm(g.node_avg_w, 1, 1), share,
                        runtime_pm(g.runtime_s), peak, badge(first.node.provenance));
    }
    b += "</tbody></table>";
}

namespace {

// The row of counted part i (or the rest) of a label's table.
std::string part_row(const RepeatSummary& g, std::size_t i, const EnergyUnit& u, Colors& colors) {
    const auto& first = g.runs.front();
    const auto& name = g.part_energy_j[i].first;
    const Item* it = find_item(first, name);
    if (it == nullptr) {
        return {};
    }
    std::vector<double> peaks;
    for (const auto& run : g.runs) {
        if (const Item* x = find_item(run, name); x != nullptr && x->peak_w) {
            peaks.push_back(*x->peak_w);
        }
    }
    const auto peak = stat_of(peaks);
    std::string source = escape(it->backend);
    if (it->mean_util) {
        source += fmt::format("{}util {:.0f} %", source.empty() ? "" : " · ", *it->mean_util);
        if (*it->mean_util <= 1) {
            source += " · <b>idle</b>";
        }
    }
    const double node_e = g.node_energy_j.mean;
    const double e = g.part_energy_j[i].second.mean;
    const bool rest = name == "rest";
    return fmt::format(
        "<tr><td>{}{}</td><td>{}</td>{}<td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td class=\"text\">{}</td></tr>",
        swatch(rest ? std::string{k_rest_color} : colors.of(name),
               it->provenance == Provenance::estimated),
        rest ? "rest of node" : escape(name), energy_pm(g.part_energy_j[i].second, u),
        sensor_td(g.part_energy_j[i].second, u), mean_pm(g.part_avg_w[i].second, 1, 1),
        peak.n > 0 ? mean_pm(peak, 1, 1) : "–",
        node_e > 0 ? fmt::format("{:.1f} %", 100 * e / node_e) : std::string{"–"},
        badge(it->provenance), rest && source.empty() ? "node − Σ parts" : source);
}

// Under a label's table: baseline, the monitor's overhead, the runs' notes and events.
std::string part_notes(const RepeatSummary& g) {
    std::vector<std::string> notes;
    if (g.idle_w && g.dynamic_energy_j) {
        notes.push_back(fmt::format("Idle baseline {:.1f} W → dynamic energy {} (node − idle "
                                    "power × runtime).",
                                    *g.idle_w, energy_text(*g.dynamic_energy_j)));
    }
    const double total_rt = g.runtime_s.mean * static_cast<double>(g.runs.size());
    notes.push_back(fmt::format("Monitor overhead: {:.3f} s CPU over {:.1f} s ({:.2f} % of one "
                                "core).",
                                g.monitor_cpu_s, total_rt,
                                total_rt > 0 ? 100 * g.monitor_cpu_s / total_rt : 0.0));
    for (const auto& n : g.runs.front().notes) {
        notes.push_back(escape(n));
    }
    std::size_t events = 0;
    for (const auto& run : g.runs) {
        events += run.events.size();
    }
    if (events > 0) {
        notes.push_back(fmt::format("{} sensor event{} (jumps, wraps, read errors) recorded; see "
                                    "the trace's event table.",
                                    events, events == 1 ? "" : "s"));
    }
    std::string out = "<ul class=\"notes\">";
    for (const auto& n : notes) {
        out += "<li>" + n + "</li>";
    }
    return out + "</ul>";
}

} // namespace

void part_table(Page& pg, const RepeatSummary& g, Colors& colors) {
    auto& b = pg.body;
    const auto& first = g.runs.front();
    const auto u = energy_unit(g.node_energy_j.mean);
    b += fmt::format("<table class=\"parts\"><caption>{} run{} of “{}”{}</caption><thead><tr>"
                     "<th>Part</th><th>Consumption [{}]</th><th>± sensors</th>"
                     "<th>Average power [W]</th>"
                     "<th>Peak power [W]</th><th>Share of node energy</th><th>Provenance</th>"
                     "<th class=\"text\">Source</th></tr></thead><tbody>",
                     g.runs.size(), g.runs.size() == 1 ? "" : "s", escape(g.label),
                     g.runs.size() > 1 ? " — mean ± sample standard deviation" : "", u.name);
    // (its share of the rating is in the overview table and under the distribution)
    const std::string node_peak = g.node_peak_w.n > 0 ? mean_pm(g.node_peak_w, 1, 1) : "–";
    b += fmt::format("<tr class=\"node\"><td>{}node</td><td>{}</td>{}<td>{}</td><td>{}</td>"
                     "<td>100 %</td><td>{}</td><td class=\"text\">{}</td></tr>",
                     swatch(std::string{k_node_color}), energy_pm(g.node_energy_j, u),
                     sensor_td(g.node_energy_j, u), mean_pm(g.node_avg_w, 1, 1), node_peak,
                     badge(first.node.provenance), escape(first.node_basis));
    for (std::size_t i = 0; i < g.part_energy_j.size(); ++i) {
        b += part_row(g, i, u, colors);
    }
    for (const auto& o : first.others) {
        b += fmt::format(
            "<tr class=\"other\"><td>{}</td><td>{:.{}f}</td>{}<td>{:.1f}</td>"
            "<td>{}</td><td></td><td>{}</td><td class=\"text\">not summed: {}</td></tr>",
            escape(o.name), o.energy_j * u.per_joule, u.digits,
            sensor_td(Stat{o.energy_j, 0, 1, o.bound}, u), o.avg_w,
            o.peak_w ? fmt::format("{:.1f}", *o.peak_w) : "–", badge(o.provenance),
            escape(not_summed_reason(o.parent, o.backend)));
    }
    b += "</tbody></table>";
    for (const auto& line : attribution_lines(g)) { // docs/attribution.md
        b += fmt::format("<p class=\"attribution\">{}</p>", escape(line));
    }
    b += part_notes(g);
}

void phase_table(Page& pg, const RunProfile& p, const RunSummary& run) {
    if (run.phase_totals.empty() && p.phases.problems.empty()) {
        return;
    }
    auto& b = pg.body;
    const double node_j = run.node.energy_j;
    // The job's share of each phase where the node was shared (docs/attribution.md).
    const bool shared = run.attribution && !run.attribution->exclusive;
    if (!run.phase_totals.empty()) {
        const auto u = energy_unit(node_j);
        b += fmt::format("<table class=\"phases\"><caption>Phases marked by the job: the same "
                         "figures as the text report's</caption><thead><tr><th>Phase</th>"
                         "<th>Count</th><th>Duration</th><th>Share of runtime</th>"
                         "<th>Node energy [{}]</th><th>± sensors</th><th>Share of node energy</th>"
                         "<th>Average node power [W]</th>{}</tr></thead><tbody>",
                         u.name, shared ? fmt::format("<th>Job's share [{}]</th>", u.name) : "");
        for (const auto& t : run.phase_totals) {
            std::string job;
            if (shared) {
                job = t.node.share ? fmt::format("<td>{:.{}f}</td>",
                                                 t.node.share->job_j() * u.per_joule, u.digits)
                                   : std::string{"<td>–</td>"};
            }
            b += fmt::format(
                "<tr><td>{}{}</td><td>{}</td><td>{}</td><td>{:.1f} %</td>"
                "<td>{:.{}f}</td>{}<td>{}</td><td>{:.1f}</td>{}</tr>",
                escape(t.name), t.open_at_end ? " <span class=\"muted\">(open)</span>" : "",
                t.occurrences, seconds_text(t.runtime_s),
                run.runtime_s > 0 ? 100 * t.runtime_s / run.runtime_s : 0.0,
                t.node.energy_j * u.per_joule, u.digits,
                sensor_td(Stat{t.node.energy_j, 0, 1, t.node.bound}, u),
                node_j > 0 ? fmt::format("{:.1f} %", 100 * t.node.energy_j / node_j) : "–",
                t.node.avg_w, job);
        }
        b += "</tbody></table>";
    }
    if (!p.phases.problems.empty()) {
        b += "<ul class=\"notes\">";
        for (const auto& pr : p.phases.problems) {
            b += "<li>Marker problem: " + escape(pr) + "</li>";
        }
        b += "</ul>";
    }
}

} // namespace jp::report::html
