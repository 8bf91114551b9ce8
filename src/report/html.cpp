#include "report/html.hpp"

#include "core/duration.hpp"
#include "jp_version.hpp"
#include "report/html_data.hpp"
#include "report/html_page.hpp"
#include "report/html_svg.hpp"
#include "report/summary.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <map>

namespace jp::report {
namespace {

using html::escape;

// Runs of one label beyond this are in the tables and the energy figure but
// get no profile of their own (each profile reads the whole run).
constexpr std::size_t k_max_profiled_runs = 20;

constexpr std::array<std::string_view, 8> k_phase_colors{
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#e15759", "#76b7b2", "#c9a227", "#9c755f"};

Error about(const Error& e, const std::string& where) {
    if (e.where == where) {
        return e;
    }
    Error out = e;
    out.where = where;
    out.detail = e.message();
    return out;
}

std::string mean_pm(const Stat& s, double scale, int digits) {
    if (s.n > 1) {
        return fmt::format("{:.{}f} ± {:.{}f}", s.mean * scale, digits, s.std * scale, digits);
    }
    return fmt::format("{:.{}f}", s.mean * scale, digits);
}

std::string hms_pm(const Stat& s) {
    if (s.n > 1) {
        return fmt::format("{} ± {:.1f} s", format_hms(s.mean), s.std);
    }
    return format_hms(s.mean);
}

// "estimated", "lower bound", both or neither: how a node figure was obtained.
std::string basis_note(bool estimated, bool lower_bound) {
    std::string s = estimated ? "estimated" : "";
    return lower_bound ? s + (s.empty() ? "" : ", ") + "lower bound" : s;
}

std::string node_note(const html::RunProfile& p) {
    return basis_note(p.node && p.node->provenance == Provenance::estimated, p.node_lower_bound);
}

// After "the node's": how a node figure without a node meter was obtained.
std::string node_caption(const html::RunProfile& p) {
    if (!p.node_from_parts) {
        return "";
    }
    return p.node_lower_bound ? " (the sum of its parts: a lower bound, as the rest of the node "
                                "has no meter and no model)"
                              : " (the sum of its parts and the rest-of-node model: estimated)";
}

std::string bars_legend(const html::BarsFigure& f) {
    const auto has = [&](std::string_view what) {
        return std::ranges::any_of(
            f.bars, [&](const auto& b) { return b.total_note.find(what) != std::string::npos; });
    };
    std::string s;
    if (has("lower bound")) {
        s += "≥ = a lower bound, the sum of the parts";
    }
    if (has("estimated")) {
        s += std::string{s.empty() ? "" : "; "} + "* = estimated";
    }
    return s.empty() ? s : " (" + s + ")";
}

std::string badge(Provenance p) {
    return fmt::format(R"~(<span class="prov {0}">{0}</span>)~", to_string(p));
}

std::string swatch(const std::string& color, bool hatched = false) {
    return fmt::format(R"~(<span class="swatch" style="background:{}{}"></span>)~", color,
                       hatched ? ";background-image:repeating-linear-gradient(45deg,transparent "
                                 "0 3px,rgba(255,255,255,.8) 3px 5px)"
                               : "");
}

std::string seconds_text(double s) {
    if (s >= 3600) {
        return format_hms(s);
    }
    if (s >= 10) {
        return fmt::format("{:.1f} s", s);
    }
    return fmt::format("{:.3f} s", s);
}

std::string step_text(std::int64_t ns) {
    if (ns >= 1'000'000'000 && ns % 1'000'000'000 == 0) {
        return fmt::format("{} s", ns / 1'000'000'000);
    }
    if (ns >= 1'000'000) {
        return fmt::format("{:g} ms", static_cast<double>(ns) * 1e-6);
    }
    return fmt::format("{:g} µs", static_cast<double>(ns) * 1e-3);
}

std::string meta_of(const trace::Reader& r, const std::string& key) {
    auto it = r.meta().find(key);
    return it == r.meta().end() ? std::string{} : it->second;
}

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

// One colour per part name across a trace's figures.
class Colors {
public:
    std::string of(const std::string& name) {
        auto [it, added] = m_map.try_emplace(name, "");
        if (added) {
            it->second = html::part_color(m_map.size() - 1);
        }
        return it->second;
    }

private:
    std::map<std::string, std::string> m_map;
};

class Page {
public:
    explicit Page(const HtmlOptions& o) : opt(o) {}
    const HtmlOptions& opt;
    std::string body;
    int figure = 0;
    int trace_no = 0;
    int svg_no = 0;
    std::string next_id(std::string_view kind) { return fmt::format("{}-{}", kind, ++svg_no); }
};

int plot_width(const HtmlOptions& o) {
    return std::clamp(o.plot_width_px, 200, 4000);
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
            row("Sampling interval", step_text(std::stoll(iv)));
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

// The study's table: one row per label.
void overview_table(Page& pg,
                    const std::vector<RepeatSummary>& groups,
                    const std::optional<Rating>& rated) {
    auto& b = pg.body;
    b += "<table class=\"overview\"><caption>Per label: mean ± sample standard deviation over "
         "the measured runs</caption><thead><tr><th>Label</th><th>Runs</th>"
         "<th>Consumption [kJ]</th><th>Average power [W]</th><th>Runtime [hh:mm:ss]</th>"
         "<th>Peak power [W]</th><th class=\"text\">Node figure</th></tr></thead><tbody>";
    for (const auto& g : groups) {
        const auto& first = g.runs.front();
        std::string peak = g.node_peak_w.n > 0 ? mean_pm(g.node_peak_w, 1, 1) : "–";
        if (g.node_peak_w.n > 0 && rated && rated->watts > 0) {
            peak += fmt::format(" ({:.0f} % of rated)", 100 * g.node_peak_w.mean / rated->watts);
        }
        b += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                         "<td class=\"text\">{}</td></tr>",
                         escape(g.label), g.runs.size(), mean_pm(g.node_energy_j, 1e-3, 3),
                         mean_pm(g.node_avg_w, 1, 1), hms_pm(g.runtime_s), peak,
                         badge(first.node.provenance));
    }
    b += "</tbody></table>";
}

void energy_figure(Page& pg, const std::vector<RepeatSummary>& groups, Colors& colors) {
    html::BarsFigure f;
    f.id = pg.next_id("bars");
    f.width = plot_width(pg.opt) + 88;
    bool any_hatched = false;
    std::map<std::string, bool> seen;
    std::optional<Provenance> rest_prov;
    for (const auto& g : groups) {
        for (const auto& run : g.runs) {
            html::Bar bar;
            bar.group = g.label;
            bar.label = fmt::format("run {}", run.run.repeat > 0 ? run.run.repeat : 1);
            for (const auto& p : run.parts) {
                const bool est = p.provenance == Provenance::estimated;
                any_hatched = any_hatched || est;
                bar.segments.push_back({p.name, p.energy_j * 1e-3, colors.of(p.name), est,
                                        fmt::format("{}: {:.3f} kJ ({})", p.name, p.energy_j * 1e-3,
                                                    to_string(p.provenance))});
                if (!seen.contains(p.name)) {
                    seen[p.name] = true;
                    f.legend.push_back(
                        {est ? p.name + " (estimated)" : p.name, colors.of(p.name), est});
                }
            }
            if (run.rest) {
                const bool est = run.rest->provenance == Provenance::estimated;
                any_hatched = any_hatched || est;
                rest_prov = run.rest->provenance;
                bar.segments.push_back(
                    {"rest", run.rest->energy_j * 1e-3, std::string{html::k_rest_color}, est,
                     fmt::format("rest of the node: {:.3f} kJ ({})", run.rest->energy_j * 1e-3,
                                 to_string(run.rest->provenance))});
            }
            bar.total = run.node.energy_j * 1e-3;
            bar.total_note =
                basis_note(run.node.provenance == Provenance::estimated, run.node.lower_bound);
            f.bars.push_back(std::move(bar));
        }
    }
    if (rest_prov) {
        f.legend.push_back({fmt::format("rest of node ({})", to_string(*rest_prov)),
                            std::string{html::k_rest_color}, *rest_prov == Provenance::estimated});
    }
    if (any_hatched) {
        f.legend.push_back({"hatched = estimated", "#8d9399", true});
    }
    const int n = ++pg.figure;
    pg.body += "<figure>" + html::stacked_bars_svg(f);
    pg.body += fmt::format(
        "<figcaption><b>Figure {}.</b> Energy of each measured run, stacked by part [kJ]; the "
        "figure above a bar is the node's energy{}. The rest of the node is node − Σ parts when "
        "a node meter exists (derived), else the configured rest-of-node model (estimated). "
        "Hatched parts are estimated by a model, not measured.</figcaption></figure>",
        n, bars_legend(f));
}

void part_table(Page& pg, const RepeatSummary& g, Colors& colors) {
    auto& b = pg.body;
    const auto& first = g.runs.front();
    const double node_e = g.node_energy_j.mean;
    const auto share = [&](double e) {
        return node_e > 0 ? fmt::format("{:.1f} %", 100 * e / node_e) : std::string{"–"};
    };
    b += fmt::format("<table class=\"parts\"><caption>{} run{} of “{}”{}</caption><thead><tr>"
                     "<th>Part</th><th>Consumption [kJ]</th><th>Average power [W]</th>"
                     "<th>Peak power [W]</th><th>Share of node energy</th><th>Provenance</th>"
                     "<th class=\"text\">Source</th></tr></thead><tbody>",
                     g.runs.size(), g.runs.size() == 1 ? "" : "s", escape(g.label),
                     g.runs.size() > 1 ? " — mean ± sample standard deviation" : "");
    // (its share of the rating is in the overview table and under the distribution)
    const std::string node_peak = g.node_peak_w.n > 0 ? mean_pm(g.node_peak_w, 1, 1) : "–";
    b += fmt::format("<tr class=\"node\"><td>{}node</td><td>{}</td><td>{}</td><td>{}</td>"
                     "<td>100 %</td><td>{}</td><td class=\"text\">{}</td></tr>",
                     swatch(std::string{html::k_node_color}), mean_pm(g.node_energy_j, 1e-3, 3),
                     mean_pm(g.node_avg_w, 1, 1), node_peak, badge(first.node.provenance),
                     escape(first.node_basis));
    for (std::size_t i = 0; i < g.part_energy_j.size(); ++i) {
        const auto& name = g.part_energy_j[i].first;
        const Item* it = find_item(first, name);
        if (it == nullptr) {
            continue;
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
        const bool rest = name == "rest";
        b += fmt::format(
            "<tr><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
            "<td>{}</td><td class=\"text\">{}</td></tr>",
            swatch(rest ? std::string{html::k_rest_color} : colors.of(name),
                   it->provenance == Provenance::estimated),
            rest ? "rest of node" : escape(name), mean_pm(g.part_energy_j[i].second, 1e-3, 3),
            mean_pm(g.part_avg_w[i].second, 1, 1), peak.n > 0 ? mean_pm(peak, 1, 1) : "–",
            share(g.part_energy_j[i].second.mean), badge(it->provenance),
            rest && source.empty() ? "node − Σ parts" : source);
    }
    for (const auto& o : first.others) {
        b += fmt::format("<tr class=\"other\"><td>{}</td><td>{:.3f}</td><td>{:.1f}</td>"
                         "<td>{}</td><td></td><td>{}</td><td class=\"text\">not summed: within "
                         "{}</td></tr>",
                         escape(o.name), o.energy_j * 1e-3, o.avg_w,
                         o.peak_w ? fmt::format("{:.1f}", *o.peak_w) : "–", badge(o.provenance),
                         o.parent.empty() ? "another channel" : escape(o.parent));
    }
    b += "</tbody></table>";
    std::vector<std::string> notes;
    if (g.idle_w && g.dynamic_energy_j) {
        notes.push_back(fmt::format("Idle baseline {:.1f} W → dynamic energy {} kJ (node − idle "
                                    "power × runtime).",
                                    *g.idle_w, mean_pm(*g.dynamic_energy_j, 1e-3, 3)));
    }
    const double total_rt = g.runtime_s.mean * static_cast<double>(g.runs.size());
    notes.push_back(fmt::format("Monitor overhead: {:.3f} s CPU over {:.1f} s ({:.2f} % of one "
                                "core).",
                                g.monitor_cpu_s, total_rt,
                                total_rt > 0 ? 100 * g.monitor_cpu_s / total_rt : 0.0));
    for (const auto& n : first.notes) {
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
    b += "<ul class=\"notes\">";
    for (const auto& n : notes) {
        b += "<li>" + n + "</li>";
    }
    b += "</ul>";
}

void phase_table(Page& pg, const html::RunProfile& p) {
    if (p.phase_totals.empty() && p.phases.problems.empty()) {
        return;
    }
    auto& b = pg.body;
    const double runtime = static_cast<double>(p.t1 - p.t0) * 1e-9;
    double node_j = 0;
    if (p.windows > 0) {
        node_j = p.distribution.mean_w * runtime;
    }
    if (!p.phase_totals.empty()) {
        b += "<table class=\"phases\"><caption>Phases marked by the job; node energy from the "
             "node's power series</caption><thead><tr><th>Phase</th><th>Count</th>"
             "<th>Duration</th><th>Share of runtime</th><th>Node energy [kJ]</th>"
             "<th>Share of node energy</th><th>Average node power [W]</th></tr></thead><tbody>";
        for (const auto& t : p.phase_totals) {
            b += fmt::format("<tr><td>{}{}</td><td>{}</td><td>{}</td><td>{:.1f} %</td>"
                             "<td>{:.3f}</td><td>{}</td><td>{}</td></tr>",
                             escape(t.name),
                             t.open_at_end ? " <span class=\"muted\">(open)</span>" : "", t.count,
                             seconds_text(t.seconds), runtime > 0 ? 100 * t.seconds / runtime : 0.0,
                             t.joules * 1e-3,
                             node_j > 0 ? fmt::format("{:.1f} %", 100 * t.joules / node_j) : "–",
                             t.seconds > 0 ? fmt::format("{:.1f}", t.joules / t.seconds) : "–");
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

void profile_figure(
    Page& pg, const html::RunProfile& p, const std::string& label, int fig_no, Colors& colors) {
    html::ProfileFigure f;
    f.id = pg.next_id("profile");
    f.plot_width = plot_width(pg.opt);
    const double runtime = static_cast<double>(p.t1 - p.t0) * 1e-9;
    f.runtime_s = runtime;
    if (p.node) {
        const bool est = p.node->provenance == Provenance::estimated;
        f.lines.push_back({p.node->name, std::string{html::k_node_color}, p.node->points, est, true,
                           node_note(p)});
    }
    for (const auto& s : p.parts) {
        const bool est = s.provenance == Provenance::estimated;
        f.lines.push_back(
            {s.name, colors.of(s.name), s.points, est, false, est ? "estimated" : ""});
    }
    const double span = static_cast<double>(p.t1 - p.t0);
    std::map<std::string, std::string> phase_color;
    for (const auto& ph : p.phases.phases) {
        auto [it, added] = phase_color.try_emplace(ph.name, "");
        if (added) {
            it->second = k_phase_colors[(phase_color.size() - 1) % k_phase_colors.size()];
        }
        const double a = span > 0 ? static_cast<double>(ph.begin_ns - p.t0) / span : 0;
        const double e = span > 0 ? static_cast<double>(ph.end_ns - p.t0) / span : 0;
        f.phases.push_back(
            {ph.name, a, e, it->second,
             fmt::format("{}: {} → {} ({}, {:.1f} % of runtime){}", ph.name,
                         seconds_text(a * runtime), seconds_text(e * runtime),
                         seconds_text((e - a) * runtime), 100 * (e - a),
                         ph.open_at_end ? "; no end marker, closed at the run's end" : "")});
    }
    for (const auto& m : p.phases.points) {
        const double x = span > 0 ? static_cast<double>(m.t_ns - p.t0) / span : 0;
        if (x >= 0 && x <= 1) {
            f.points.push_back({m.name, x});
        }
    }
    pg.body += "<figure>" + html::profile_svg(f);
    std::string how;
    if (p.step_ns > 0) {
        how = fmt::format(" Power is the mean over each {} window of the samples ({} windows); "
                          "each line keeps the lowest and highest window per pixel column, so "
                          "short peaks stay visible.",
                          step_text(p.step_ns), p.windows);
    }
    pg.body += fmt::format(
        "<figcaption><b>Figure {}.</b> Power over fractional runtime of run {} of “{}” (runtime "
        "{}): the node{} and each counted part{}.{}</figcaption></figure>",
        fig_no, p.run.repeat > 0 ? p.run.repeat : 1, escape(label), format_hms(runtime),
        node_caption(p),
        p.phases.phases.empty() ? "" : "; shaded bands are the phases the job marked", how);
}

void distribution_figure(Page& pg,
                         const html::RunProfile& p,
                         const std::optional<Rating>& rated,
                         int fig_no) {
    const auto& d = p.distribution;
    if (p.windows == 0 || p.histogram.empty()) {
        pg.body += "<p class=\"note\">No node power series for this run: too few samples.</p>";
        return;
    }
    html::HistogramFigure f;
    f.id = pg.next_id("hist");
    f.plot_width = plot_width(pg.opt);
    f.lo = p.hist_lo;
    f.hi = p.hist_hi;
    f.share = p.histogram;
    f.lines.push_back({fmt::format("p50 {:.0f} W", d.p50_w), d.p50_w, "#4e79a7", true, 1.6});
    f.lines.push_back({fmt::format("p95 {:.0f} W", d.p95_w), d.p95_w, "#e08a1e", true, 1.6});
    f.lines.push_back({fmt::format("p99 {:.0f} W", d.p99_w), d.p99_w, "#d0453d", true, 1.6});
    f.lines.push_back({fmt::format("peak {:.0f} W", d.peak_w), d.peak_w, "#8b1a1a", false, 2});
    if (d.threshold_w) {
        f.lines.push_back({fmt::format("threshold {:.0f} W", *d.threshold_w), *d.threshold_w,
                           "#3d8c40", true, 2});
    }
    std::string rated_text;
    if (rated && rated->watts > 0) {
        const double pct = 100 * d.peak_w / rated->watts;
        if (rated->watts <= p.hist_hi) {
            f.lines.push_back(
                {fmt::format("rated {:.0f} W", rated->watts), rated->watts, "#111111", false, 2.6});
        }
        rated_text = fmt::format(
            " <b>Peak {:.0f} W = {:.0f} % of rated {:.0f} W</b> ({}; {:.0f} % {} the rating){}.",
            d.peak_w, pct, rated->watts, escape(rated->source), std::abs(100 - pct),
            pct <= 100 ? "below" : "above",
            rated->watts > p.hist_hi ? "; the rating lies beyond the axis" : "");
    } else {
        rated_text = " Rated power not known: set <code>[node] rated_watts</code> to compare.";
    }
    pg.body += "<figure>" + html::histogram_svg(f);
    std::string peaks = fmt::format("peak {:.1f} W", d.peak_w);
    if (d.peak_1s_w) {
        peaks += fmt::format(", highest 1 s mean {:.1f} W", *d.peak_1s_w);
    }
    if (d.peak_60s_w) {
        peaks += fmt::format(", highest 60 s mean {:.1f} W", *d.peak_60s_w);
    }
    std::string above;
    if (d.threshold_w) {
        const double runtime = static_cast<double>(p.t1 - p.t0) * 1e-9;
        above = fmt::format(" Above {:.0f} W for {} ({:.1f} % of the runtime).", *d.threshold_w,
                            seconds_text(d.seconds_above),
                            runtime > 0 ? 100 * d.seconds_above / runtime : 0.0);
    }
    pg.body += fmt::format(
        "<figcaption><b>Figure {}.</b> Distribution of node power{} over run {}: share of the "
        "runtime per {:.0f} W bin (time-weighted). Mean {:.1f} W; p50 {:.1f} W, p95 {:.1f} W, "
        "p99 {:.1f} W; {}.{}{}</figcaption></figure>",
        fig_no, node_caption(p), p.run.repeat > 0 ? p.run.repeat : 1,
        (p.hist_hi - p.hist_lo) / static_cast<double>(p.histogram.size()), d.mean_w, d.p50_w,
        d.p95_w, d.p99_w, peaks, rated_text, above);
}

Result<void> label_section(Page& pg,
                           trace::Reader& reader,
                           const RepeatSummary& g,
                           const std::optional<Rating>& rated,
                           std::size_t label_no,
                           Colors& colors) {
    auto& b = pg.body;
    const auto box = fmt::format("t{}-l{}", pg.trace_no, label_no);
    const auto& first = g.runs.front();
    b += fmt::format("<section class=\"label\" id=\"{}\"><h3>{} <span class=\"muted\">· {} "
                     "measured run{}</span></h3>",
                     box, escape(g.label), g.runs.size(), g.runs.size() == 1 ? "" : "s");
    if (!first.run.command.empty()) {
        b += "<p class=\"lead\">Command: <code>" + escape(first.run.command) + "</code></p>";
    }
    part_table(pg, g, colors);

    const std::size_t n = std::min(g.runs.size(), k_max_profiled_runs);
    if (g.runs.size() > 1) {
        b += fmt::format("<div class=\"runbar\"><label for=\"{0}-sel\">Profile of run</label>"
                         "<select id=\"{0}-sel\" class=\"jp-run-select\" data-for=\"{0}\">",
                         box);
        for (std::size_t i = 0; i < n; ++i) {
            const auto& r = g.runs[i];
            b += fmt::format("<option value=\"{}\">{} ({}, {:.3f} kJ)</option>", i,
                             r.run.repeat > 0 ? r.run.repeat : static_cast<int>(i + 1),
                             format_hms(r.runtime_s), r.node.energy_j * 1e-3);
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
    for (std::size_t i = 0; i < n; ++i) {
        infos.push_back(g.runs[i].run);
    }
    auto profiles = html::load_profiles(reader, infos,
                                        {plot_width(pg.opt), pg.opt.threshold_w,
                                         rated ? std::optional{rated->watts} : std::nullopt, 60});
    if (!profiles) {
        return std::unexpected(profiles.error());
    }
    for (std::size_t i = 0; i < n; ++i) {
        const auto& r = g.runs[i];
        const auto* prof = &(*profiles)[i];
        b += fmt::format("<div class=\"run-panel\" data-run=\"{}\"{}>", i, i == 0 ? "" : " hidden");
        std::string exit;
        if (r.run.signal) {
            exit = fmt::format(" · killed by signal {}", *r.run.signal);
        } else if (r.run.exit_code) {
            exit = fmt::format(" · exit status {}", *r.run.exit_code);
        }
        b +=
            fmt::format("<p class=\"run-facts\">Run {} · started {} · runtime {} · node {:.3f} kJ, "
                        "{:.1f} W on average{}{}</p>",
                        r.run.repeat > 0 ? r.run.repeat : static_cast<int>(i + 1),
                        r.run.start_utc.empty() ? "–" : escape(r.run.start_utc),
                        format_hms(r.runtime_s), r.node.energy_j * 1e-3, r.node.avg_w, exit,
                        r.complete     ? ""
                        : r.run.end_ns ? " · <b>incomplete</b>: a sensor was lost during the run"
                                       : " · <b>incomplete</b>: the monitor stopped early");
        profile_figure(pg, *prof, g.label, profile_fig, colors);
        phase_table(pg, *prof);
        distribution_figure(pg, *prof, rated, dist_fig);
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
    ++pg.trace_no;
    const auto rated = rated_power(*reader);
    Colors colors;
    for (const auto& g : *groups) { // parts keep one colour in every figure
        for (const auto& p : g.runs.front().parts) {
            colors.of(p.name);
        }
    }
    auto& b = pg.body;
    b += fmt::format("<section class=\"trace\" id=\"trace-{}\"><h2>{}</h2>", pg.trace_no,
                     escape(path.filename().string()));
    facts(pg, *reader, *groups, rated);
    if (groups->empty()) {
        b += "<p class=\"note\">This trace holds no measured run.</p></section>";
        return {};
    }
    overview_table(pg, *groups, rated);
    energy_figure(pg, *groups, colors);
    for (std::size_t i = 0; i < groups->size(); ++i) {
        if (auto r = label_section(pg, *reader, (*groups)[i], rated, i + 1, colors); !r) {
            return std::unexpected(about(r.error(), path.string()));
        }
    }
    b += "</section>";
    return {};
}

Result<void> write_file(const std::filesystem::path& out, const std::string& text) {
    std::FILE* f = std::fopen(out.c_str(), "wb");
    if (f == nullptr) {
        return std::unexpected(errno_error(errno, out.string()));
    }
    const std::size_t written = std::fwrite(text.data(), 1, text.size(), f);
    const int write_errno = errno;
    const bool flushed = std::fflush(f) == 0;
    const int flush_errno = errno;
    if (std::fclose(f) != 0 || !flushed || written != text.size()) {
        return std::unexpected(
            errno_error(written != text.size() ? write_errno : flush_errno, out.string()));
    }
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
            " · energy in kJ, power in W; mean ± sample standard deviation over repeats; every "
            "figure marked measured, derived or estimated.</p></header>";
    page += pg.body;
    page += "<footer>Written by jouleprof " JP_VERSION
            ". The page is self-contained: no network access, no external files.</footer>"
            "</main><script>";
    page += html::page_script();
    page += "</script></body></html>\n";
    return write_file(out, page);
}

} // namespace jp::report
