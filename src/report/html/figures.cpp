// SPDX-License-Identifier: BSD-3-Clause
#include "core/duration.hpp"
#include "report/bound.hpp"
#include "report/format.hpp"
#include "report/html/sections.hpp"
#include "report/units.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <map>

namespace jp::report::html {
namespace {

constexpr std::array<std::string_view, 8> k_phase_colors{
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#e15759", "#76b7b2", "#c9a227", "#9c755f"};

// How a run's node figure was obtained, after its name in the legend.
std::string node_note(const RunProfile& p) {
    return Basis{p.node && p.node->provenance == Provenance::estimated, p.node_lower_bound}.words();
}

// After "the node's": how a node figure without a node meter was obtained.
std::string node_caption(const RunProfile& p) {
    if (!p.node_from_parts) {
        return "";
    }
    return p.node_lower_bound ? " (the sum of its parts: a lower bound, as the rest of the node "
                                "has no meter and no model)"
                              : " (the sum of its parts and the rest-of-node model: estimated)";
}

// What the marks by the bars' totals mean, for the caption.
std::string bars_legend(const BarsFigure& f) {
    Basis any;
    for (const auto& b : f.bars) {
        any |= b.total_basis;
    }
    std::string s;
    for (const auto& line : any.legend()) {
        s += (s.empty() ? " (" : "; ") + line;
    }
    return s.empty() ? s : s + ")";
}

} // namespace

void energy_figure(Page& pg, const std::vector<RepeatSummary>& groups, Colors& colors) {
    BarsFigure f;
    f.id = pg.next_id("bars");
    f.width = plot_width(pg.opt) + 88;
    bool any_hatched = false;
    bool any_bound = false;
    std::map<std::string, bool> seen;
    std::optional<Provenance> rest_prov;
    double largest = 0;
    for (const auto& g : groups) {
        for (const auto& run : g.runs) {
            largest = std::max(largest, run.node.energy_j);
        }
    }
    const auto u = energy_unit(largest);
    f.y_title = fmt::format("Energy [{}]", u.name);
    for (const auto& g : groups) {
        for (const auto& run : g.runs) {
            Bar bar;
            bar.group = g.label;
            bar.label = fmt::format("run {}", run.run.repeat > 0 ? run.run.repeat : 1);
            for (const auto& p : run.parts) {
                const bool est = p.provenance == Provenance::estimated;
                any_hatched = any_hatched || est;
                bar.segments.push_back({p.name, p.energy_j * u.per_joule, colors.of(p.name), est,
                                        fmt::format("{}: {} ({})", p.name, energy_text(p.energy_j),
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
                    {"rest", run.rest->energy_j * u.per_joule, std::string{k_rest_color}, est,
                     fmt::format("rest of the node: {} ({})", energy_text(run.rest->energy_j),
                                 to_string(run.rest->provenance))});
            }
            bar.total = run.node.energy_j * u.per_joule;
            bar.total_basis = basis_of(run.node);
            if (const auto& nb = run.node.bound) {
                any_bound = true;
                bar.total_low = nb->low * u.per_joule;
                bar.total_high = nb->high * u.per_joule;
                bar.bound_title =
                    fmt::format("the sensors' bound on the node's energy: {:.4g}–{:.4g} J ({}{}){}",
                                nb->low, nb->high, nb->dominant, assumptions_text(nb->assumed),
                                run.node.not_measurable() ? ": not measurable" : "");
            }
            f.bars.push_back(std::move(bar));
        }
    }
    if (rest_prov) {
        f.legend.push_back({fmt::format("rest of node ({})", to_string(*rest_prov)),
                            std::string{k_rest_color}, *rest_prov == Provenance::estimated});
    }
    if (any_hatched) {
        f.legend.push_back({"hatched = estimated", "#8d9399", true});
    }
    const int n = ++pg.figure;
    pg.body += "<figure>" + stacked_bars_svg(f);
    pg.body += fmt::format(
        "<figcaption><b>Figure {}.</b> Energy of each measured run, stacked by part [{}]; the "
        "figure above a bar is the node's energy{}. The rest of the node is node − Σ parts when "
        "a node meter exists (derived), else the configured rest-of-node model (estimated). "
        "Hatched parts are estimated by a model, not measured.{}</figcaption></figure>",
        n, u.name, bars_legend(f),
        any_bound ? " The whisker on a bar spans the sensors' bound on the node's energy (a "
                    "guarantee from their own limits, docs/uncertainty.md)."
                  : "");
}

namespace {

// What any window of the band rests on beyond the sensors' limits ("; assumes …").
std::string band_assumptions(const std::vector<BandPoint>& band) {
    Assumptions any;
    for (const auto& b : band) {
        any |= b.assumed;
    }
    return assumptions_text(any);
}

} // namespace

void profile_figure(Page& pg,
                    const RunProfile& p,
                    const RunSummary& summary,
                    const std::string& label,
                    int fig_no,
                    Colors& colors) {
    ProfileFigure f;
    f.id = pg.next_id("profile");
    for (const auto& b : summary.power_band) {
        f.band.push_back({b.x, b.low_w, b.high_w});
    }
    f.plot_width = plot_width(pg.opt);
    const double runtime = static_cast<double>(p.t1 - p.t0) * 1e-9;
    f.runtime_s = runtime;
    if (p.node) {
        const bool est = p.node->provenance == Provenance::estimated;
        f.lines.push_back(
            {p.node->name, std::string{k_node_color}, p.node->points, est, true, node_note(p)});
    }
    for (const auto& s : p.parts) {
        const bool est = s.provenance == Provenance::estimated;
        f.lines.push_back(
            {s.name, colors.of(s.name), s.points, est, false, est ? "estimated" : ""});
    }
    const auto span = static_cast<double>(p.t1 - p.t0);
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
    pg.body += "<figure>" + profile_svg(f);
    std::string how;
    if (p.step_ns > 0 && p.windows < 2) {
        how = " The run is shorter than two of the profile's windows: each line is its mean "
              "power over the whole run, from the samples at its edges.";
    } else if (p.step_ns > 0) {
        how = fmt::format(" Power is the mean over each {} window of the samples ({} windows); "
                          "each line keeps the lowest and highest window per pixel column, so "
                          "short peaks stay visible.",
                          step_text(p.step_ns), p.windows);
    }
    pg.body += fmt::format(
        "<figcaption><b>Figure {}.</b> Power over the time of run {} of “{}” (runtime "
        "{}): the node{} and each counted part{}.{}{}</figcaption></figure>",
        fig_no, p.run.repeat > 0 ? p.run.repeat : 1, escape(label), runtime_text(runtime),
        node_caption(p),
        p.phases.phases.empty() ? "" : "; shaded bands are the phases the job marked", how,
        f.band.empty()
            ? ""
            : fmt::format(" The grey band around the node is where the sensors' own limits put its "
                          "mean power, window by window ({} windows{}; docs/uncertainty.md).",
                          f.band.size(), escape(band_assumptions(summary.power_band))));
}

void distribution_figure(Page& pg,
                         const RunProfile& p,
                         const RunSummary& summary,
                         const std::optional<Rating>& rated,
                         int fig_no) {
    const auto& d = p.distribution;
    if (p.windows == 0 || p.histogram.empty()) {
        pg.body += "<p class=\"note\">No node power series for this run: too few samples.</p>";
        return;
    }
    HistogramFigure f;
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
    pg.body += "<figure>" + histogram_svg(f);
    std::string peaks = fmt::format("peak {:.1f} W", d.peak_w);
    // Where the sensors' bounds put the highest window's true mean: the summary's range, on
    // the same grid as this figure's peak.
    const auto& range = summary.power ? summary.power->peak_bound : std::nullopt;
    if (range && summary.power_step_ns == p.step_ns) {
        peaks += fmt::format(" (the true peak at this resolution lies in {:.1f}–{:.1f} W by the "
                             "sensors' bounds{})",
                             range->low_w, range->high_w, escape(assumptions_text(range->assumed)));
    }
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
        "runtime per {} W bin (time-weighted). Mean {:.1f} W; p50 {:.1f} W, p95 {:.1f} W, "
        "p99 {:.1f} W; {}.{}{}</figcaption></figure>",
        fig_no, node_caption(p), p.run.repeat > 0 ? p.run.repeat : 1,
        plain_number((p.hist_hi - p.hist_lo) / static_cast<double>(p.histogram.size()), 3),
        d.mean_w, d.p50_w, d.p95_w, d.p99_w, peaks, rated_text, above);
}

} // namespace jp::report::html
