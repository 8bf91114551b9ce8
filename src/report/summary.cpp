// SPDX-License-Identifier: BSD-3-Clause
#include "report/summary.hpp"

#include "report/attribution.hpp"
#include "report/idle.hpp"
#include "report/lost.hpp"
#include "report/phases.hpp"
#include "report/window.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

namespace jp::report {
namespace {

constexpr int k_band_windows = 300; // the HTML profile's band: about 3 px a window

std::optional<double> meta_double(const trace::Reader& r, const std::string& key) {
    auto it = r.meta().find(key);
    if (it == r.meta().end()) {
        return std::nullopt;
    }
    try {
        return std::stod(it->second);
    } catch (...) {
        return std::nullopt;
    }
}

PhaseSummary phase_summary(Figures f, std::string name, std::int64_t begin, std::int64_t end) {
    PhaseSummary p;
    static_cast<Figures&>(p) = std::move(f);
    p.name = std::move(name);
    p.begin_ns = begin;
    p.end_ns = end;
    return p;
}

// All occurrences of one name as one window set: the union of their intervals.
PhaseSummary total_of(const RunData& d, const std::vector<const Phase*>& same) {
    std::vector<std::pair<std::int64_t, std::int64_t>> spans;
    spans.reserve(same.size());
    for (const auto* p : same) {
        spans.emplace_back(p->begin_ns, p->end_ns);
    }
    std::ranges::sort(spans);
    std::vector<std::pair<std::int64_t, std::int64_t>> merged;
    for (const auto& s : spans) {
        if (!merged.empty() && s.first <= merged.back().second) {
            merged.back().second = std::max(merged.back().second, s.second);
        } else {
            merged.push_back(s);
        }
    }
    auto total = phase_summary(figures_of(d, merged), same.front()->name, merged.front().first,
                               merged.back().second);
    total.occurrences = same.size();
    total.open_at_end = std::ranges::any_of(same, &Phase::open_at_end);
    return total;
}

Result<void> add_phases(trace::Reader& reader, const RunData& d, RunSummary& out) {
    auto markers = reader.markers(out.run.id);
    if (!markers) {
        return std::unexpected(markers.error());
    }
    const auto found = phases_of(*markers, d.t0, d.t1);
    std::vector<std::string> order;
    for (const auto& p : found.phases) {
        out.phases.push_back(
            phase_summary(figures_of(d, p.begin_ns, p.end_ns), p.name, p.begin_ns, p.end_ns));
        out.phases.back().open_at_end = p.open_at_end;
        if (std::ranges::find(order, p.name) == order.end()) {
            order.push_back(p.name);
        }
        if (p.open_at_end) {
            out.notes.push_back(
                fmt::format("phase '{}' was never ended: closed at the run's end", p.name));
        }
    }
    for (const auto& name : order) {
        std::vector<const Phase*> same;
        const PhaseSummary* only = nullptr;
        for (std::size_t i = 0; i < found.phases.size(); ++i) {
            if (found.phases[i].name == name) {
                same.push_back(&found.phases[i]);
                only = &out.phases[i];
            }
        }
        // One occurrence is its own total (the same window's figures, not made twice).
        out.phase_totals.push_back(same.size() == 1 ? *only : total_of(d, same));
    }
    out.points = found.points;
    for (const auto& problem : found.problems) {
        out.notes.push_back("markers: " + problem);
    }
    return {};
}

void add_estimate_note(RunSummary& out) {
    bool estimated = out.node.provenance == Provenance::estimated;
    for (const auto& p : out.parts) {
        estimated = estimated || p.provenance == Provenance::estimated;
    }
    if (estimated) {
        out.notes.emplace_back("figures marked 'estimated' come from a model, not a measurement");
    }
}

} // namespace

NodeFacts node_facts(const trace::Reader& reader) {
    return {meta_double(reader, "node.rest_watts"), meta_double(reader, "node.rated_watts")};
}

namespace {

// The latest complete baseline run before `run`, as idle power per channel.
std::map<std::string, double> baseline_idle(trace::Reader& reader, const trace::RunInfo& run) {
    const trace::RunInfo* base = nullptr;
    for (const auto& r : reader.runs()) {
        if (r.kind == "baseline" && r.status == "complete" && r.end_ns &&
            r.start_ns < run.start_ns) {
            base = &r;
        }
    }
    if (base == nullptr) {
        return {};
    }
    auto data = load_run(reader, *base);
    return data ? idle_of_baseline(*data) : std::map<std::string, double>{};
}

// Each item of f gets its share from a.
void set_shares(Figures& f, const Attribution& a) {
    for (const auto& p : a.parts) {
        if (p.name == "rest" && f.rest) {
            f.rest->share = p.share;
        }
        for (auto& item : f.parts) {
            if (item.name == p.name) {
                item.share = p.share;
            }
        }
    }
    f.node.share = a.node;
}

// The job's share of each figure, where the run recorded its CPU use: the run's, each
// phase's and each phase name's (over the union of its occurrences).
Result<void> add_attribution(trace::Reader& reader, const RunData& data, RunSummary& out) {
    auto usage = reader.usage(out.run.id);
    if (!usage) {
        return std::unexpected(usage.error());
    }
    if (!*usage || out.run.kind == "baseline") {
        return {};
    }
    const auto at = Attributor::make(data, **usage, baseline_idle(reader, out.run));
    if (!at) {
        out.notes.emplace_back("the run's usage record is damaged: node figures only");
        return {};
    }
    using Window = std::pair<std::int64_t, std::int64_t>;
    const Window whole{data.t0, data.t1};
    out.attribution = at->over(std::span{&whole, 1});
    set_shares(out, *out.attribution);
    for (auto& p : out.phases) {
        const Window w{p.begin_ns, p.end_ns};
        set_shares(p, at->over(std::span{&w, 1}));
    }
    for (auto& total : out.phase_totals) {
        std::vector<Window> windows;
        for (const auto& p : out.phases) {
            if (p.name == total.name) {
                windows.emplace_back(p.begin_ns, p.end_ns);
            }
        }
        std::ranges::sort(windows);
        std::vector<Window> merged; // nested or overlapping occurrences count once
        for (const auto& w : windows) {
            if (!merged.empty() && w.first <= merged.back().second) {
                merged.back().second = std::max(merged.back().second, w.second);
            } else {
                merged.push_back(w);
            }
        }
        set_shares(total, at->over(merged));
    }
    return {};
}

} // namespace

Result<RunSummary>
summarize_run(trace::Reader& reader, const trace::RunInfo& run, const SummaryOptions& options) {
    auto data = load_run(reader, run);
    if (!data) {
        return std::unexpected(data.error());
    }
    RunSummary out;
    out.run = run;
    out.trace = reader.path().string();
    if (!run.end_ns) {
        out.complete = false;
        out.notes.emplace_back("the monitor stopped before the job ended: figures cover the run up "
                               "to its last committed sample");
    }
    // (the node's peak range comes from the run's distribution below: made once)
    static_cast<Figures&>(out) = figures_of(*data, data->t0, data->t1, false);
    out.node_basis = node_basis(*data);
    add_estimate_note(out);
    if (out.rest && out.rest->bound && out.rest->bound->high < 0) {
        out.notes.push_back(fmt::format(
            "the node meter read less than the sum of its parts, by more than the sensors' own "
            "limits allow (the rest is at most {:.4g} J): the sensors disagree (a meter that "
            "measures another domain, or parts counted twice), so the rest and its share are "
            "not figures to trust",
            out.rest->bound->high));
    }
    for (auto& note : timing_notes(*data)) {
        out.notes.push_back(std::move(note));
    }
    auto coverage = field_coverage(reader, run.id);
    if (!coverage) {
        return std::unexpected(coverage.error());
    }
    out.coverage = std::move(*coverage);
    for (const auto& c : out.coverage) {
        out.notes.push_back(coverage_note(c));
    }
    if (auto r = add_phases(reader, *data, out); !r) {
        return std::unexpected(r.error());
    }
    const auto grid = node_grid(*data, data->t0, data->t1);
    if (!grid.watts.empty()) {
        out.power = power_distribution(grid, options.threshold_w);
        // The grid leaves out a tail shorter than half a window (the distribution's windows
        // would be noise there), so its own mean can miss that part of the run: the mean is
        // the run's, its energy over its runtime, as the node's row says it (a 0.85 s run on
        // 0.1 s windows: 150.0 W against the 141.9 W the energy gives).
        if (out.runtime_s > 0) {
            out.power->mean_w = out.node.avg_w;
        }
        add_distribution_bounds(*data, grid, *out.power);
        if (out.power->peak_bound) { // the node's row gives the same range as its power line
            out.node.peak_bound = out.power->peak_bound;
        }
        out.power_step_ns = grid.step_ns;
    }
    out.power_band = node_power_band(*data, k_band_windows);
    out.idle = idle_devices(out, options.idle_util_percent);
    out.rating = rated_power(reader);
    auto events = reader.events(run.id);
    if (!events) {
        return std::unexpected(events.error());
    }
    out.events = std::move(*events);
    mark_lost(reader, out);
    mark_never_changed(reader, out);
    if (auto r = add_attribution(reader, *data, out); !r) {
        return std::unexpected(r.error());
    }
    return out;
}

Result<Figures> summarize_window(trace::Reader& reader,
                                 const trace::RunInfo& run,
                                 std::int64_t t0,
                                 std::int64_t t1) {
    auto data = load_run(reader, run);
    if (!data) {
        return std::unexpected(data.error());
    }
    return figures_of(*data, t0, t1);
}

Stat stat_of(const std::vector<double>& v) {
    Stat s;
    s.n = v.size();
    if (v.empty()) {
        return s;
    }
    s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    if (std::ranges::all_of(v, [&](double x) { return x == v.front(); })) {
        s.mean = v.front(); // equal values: their mean and no spread, exactly (a sum of three
        return s;           // 1830.0 gave a std of 3.55e-15 in the JSON)
    }
    if (v.size() > 1) {
        double ss = 0;
        for (double x : v) {
            ss += (x - s.mean) * (x - s.mean);
        }
        s.std = std::sqrt(ss / static_cast<double>(v.size() - 1));
    }
    return s;
}

std::optional<Bound> mean_bound(std::span<const std::optional<Bound>> bounds) {
    if (bounds.empty()) {
        return std::nullopt;
    }
    Bound out;
    double widest = -1;
    for (const auto& b : bounds) {
        if (!b) {
            return std::nullopt;
        }
        out.low += b->low;
        out.high += b->high;
        out.terms += b->terms;
        out.assumed |= b->assumed;
        if (b->half_width() > widest) {
            widest = b->half_width();
            out.dominant = b->dominant;
        }
    }
    const auto n = static_cast<double>(bounds.size());
    out.low /= n;
    out.high /= n;
    out.terms = out.terms.scaled(1 / n);
    return out;
}

} // namespace jp::report
