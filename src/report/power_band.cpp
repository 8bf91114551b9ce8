// SPDX-License-Identifier: BSD-3-Clause
#include "report/power_band.hpp"

#include "report/share_bound.hpp"
#include "report/source_bound.hpp"
#include "report/window.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <utility>

namespace jp::report {
namespace {

// What the node's energy is made of, or nullopt where one of them has no bound (a model, an
// estimate, a counter estimated over a jump).
std::optional<std::vector<Source>> node_sources(const RunData& d) {
    std::vector<std::size_t> channels;
    if (d.node_channel) {
        channels.push_back(*d.node_channel);
    } else if (d.facts.rest_watts) {
        return std::nullopt; // a model's part: no bound
    } else {
        for (std::size_t i = 0; i < d.channels->size(); ++i) {
            const auto& c = (*d.channels)[i];
            if (c.counted && c.quantity != Quantity::utilization && c.domain != Domain::node) {
                channels.push_back(i);
            }
        }
    }
    std::vector<Source> out;
    for (const auto i : channels) {
        auto s = source_of(d, i);
        if (!s) {
            return std::nullopt;
        }
        out.push_back(*s);
    }
    if (out.empty()) {
        return std::nullopt;
    }
    return out;
}

// The node's energy over [a, b] as its sources bound it, summed; nullopt where one has none.
std::optional<Bound>
node_bound(const RunData& d, const std::vector<Source>& sources, std::int64_t a, std::int64_t b) {
    std::optional<Bound> sum = Bound{};
    for (const auto& s : sources) {
        sum = sum_of(sum, bound_over(d, s, a, b));
    }
    return sum;
}

// Each grid window's energy as the sources bound it, and, where they are all counters, their
// summed ranges at each cut (for windows of several steps; a power field has no range at an
// instant: windows of several steps add their windows' ends).
struct WindowBounds {
    std::vector<double> low;    // J, per window: the sources' lower ends added
    std::vector<double> high;   // J
    std::vector<double> cut_lo; // J, per cut (n + 1): the counters' ranges there, added
    std::vector<double> cut_hi;
    bool at_cuts = true; // cut_lo/cut_hi hold (no power field among the sources)
    Assumptions assumed{};
};

// Where grid window i begins (window i is [cut_of(i), cut_of(i + 1)]; the last ends at t1).
std::int64_t cut_of(const GridSeries& g, std::size_t i) {
    return i < g.watts.size() ? g.t0 + static_cast<std::int64_t>(i) * g.step_ns : g.t1;
}

// A counter's share of each window, from its range at each cut, its readings walked once (a
// day at 10 ms is millions of windows), the ends as counter_bound() takes them.
void add_counter(const RunData& d,
                 std::size_t channel,
                 const CounterLimits& l,
                 const GridSeries& g,
                 WindowBounds& w) {
    const auto n = g.watts.size();
    const std::span<const TimedValue> r = d.series[channel];
    std::size_t k = 0; // the first reading at or after the cut
    CounterRange before{};
    for (std::size_t i = 0; i <= n; ++i) {
        const auto t = cut_of(g, i);
        while (k < r.size() && r[k].t_ns < t) {
            ++k;
        }
        const auto from = k == 0 ? 0 : k - 1;
        const auto here = counter_range(r.subspan(from, std::min(r.size(), k + 1) - from), t, l);
        if (i > 0) {
            w.low[i - 1] += std::max(0.0, here.lo - before.hi);
            // Never more than it can draw over the window (as counter_bound() cuts it).
            const double most =
                l.max_watts * static_cast<double>(t - cut_of(g, i - 1)) * 1e-9 + 2 * l.quantum_j;
            w.high[i - 1] += std::min(here.hi - before.lo, most);
        }
        w.cut_lo[i] += here.lo;
        w.cut_hi[i] += here.hi;
        before = here;
    }
    // Windows between an anchored counter's reads follow its profile.
    w.assumed |= {.peak = l.max_assumed, .profile = d.profiled[channel] && n > 1};
}

// A power field's share of each window: its bound over the window (report/field_bound.hpp).
bool add_field(const RunData& d,
               std::size_t channel,
               const FieldLimits& l,
               const GridSeries& g,
               WindowBounds& w) {
    const auto n = g.watts.size();
    for (std::size_t i = 0; i < n; ++i) {
        const auto e = field_bound(d.series[channel], cut_of(g, i), cut_of(g, i + 1), l);
        if (!e) {
            return false;
        }
        w.low[i] += e->low;
        w.high[i] += e->high;
        w.assumed |= e->assumed;
    }
    w.at_cuts = false;
    return true;
}

std::optional<WindowBounds>
window_bounds(const RunData& d, const std::vector<Source>& sources, const GridSeries& g) {
    const auto n = g.watts.size();
    if (n == 0 || g.step_ns <= 0 || g.t0 + static_cast<std::int64_t>(n - 1) * g.step_ns >= g.t1) {
        return std::nullopt;
    }
    WindowBounds w{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0),
                   std::vector<double>(n + 1, 0.0), std::vector<double>(n + 1, 0.0)};
    for (const auto& s : sources) {
        if (s.counter) {
            add_counter(d, s.channel, *s.counter, g, w);
        } else if (!add_field(d, s.channel, *s.field, g, w)) {
            return std::nullopt;
        }
    }
    return w;
}

PowerRange range_of(const WindowBounds& w, double low_w, double high_w) {
    return PowerRange{low_w, high_w, w.assumed};
}

double seconds_between(const GridSeries& g, std::size_t a, std::size_t b) {
    return static_cast<double>(cut_of(g, b) - cut_of(g, a)) * 1e-9;
}

std::optional<PowerRange> peak_of(const WindowBounds& w, const GridSeries& g) {
    auto out = range_of(w, 0, 0);
    double low_j = 0;
    for (std::size_t i = 0; i < w.low.size(); ++i) {
        const double s = seconds_between(g, i, i + 1);
        out.low_w = std::max(out.low_w, w.low[i] / s);
        out.high_w = std::max(out.high_w, w.high[i] / s);
        low_j += w.low[i];
    }
    // The highest window's mean is never below the mean of them all: where readings are
    // sparse (a floored daemon's, 1 s apart, in a 1 s phase) each window's own low is near
    // nothing, the whole span's is not.
    const auto n = w.low.size();
    if (w.at_cuts) {
        low_j = std::max(low_j, w.cut_lo[n] - w.cut_hi[0]);
    }
    // (not where the highs were cut below it: a maximum the truth broke is not hidden
    // behind a range of no width)
    const double total = seconds_between(g, 0, n);
    if (total > 0 && low_j / total <= out.high_w) {
        out.low_w = std::max(out.low_w, low_j / total);
    }
    return out;
}

// The truth's highest mean over `steps` windows in a row: between the highest of their
// lower ends and the highest of their upper ends (each the tighter of the ranges at its two
// cuts and the windows' own ends added; with a power field among the sources, the latter).
std::optional<PowerRange>
moving_peak_of(const WindowBounds& w, const GridSeries& g, std::optional<std::size_t> steps) {
    if (!steps || *steps == 0 || *steps > w.low.size()) {
        return std::nullopt;
    }
    auto out = range_of(w, 0, 0);
    double low = 0; // the windows' ends added over the last `steps`
    double high = 0;
    for (std::size_t i = 0; i < w.low.size(); ++i) {
        low += w.low[i];
        high += w.high[i];
        if (i >= *steps) {
            low -= w.low[i - *steps];
            high -= w.high[i - *steps];
        }
        if (i + 1 < *steps) {
            continue;
        }
        const auto first = i + 1 - *steps;
        const double s = seconds_between(g, first, i + 1);
        // Both hold; the tighter is taken. The cuts' ranges leave out what a counter can
        // draw over the span (each window's high is cut to it): past a counter's last
        // reading (lost mid-run) they grow with the time since, and alone gave a second
        // of 1.5 s of its most.
        const double hi = w.at_cuts ? std::min(w.cut_hi[i + 1] - w.cut_lo[first], high) : high;
        // (never above hi: a most the counter can draw that is assumed, and broken by the
        // truth, could cross the two)
        const double lo =
            w.at_cuts ? std::min(std::max(w.cut_lo[i + 1] - w.cut_hi[first], low), hi) : low;
        out.low_w = std::max(out.low_w, std::max(0.0, lo) / s);
        out.high_w = std::max(out.high_w, hi / s);
    }
    return out;
}

// A percentile grows with each window's value: the truth's lies between the percentiles
// of the windows' lower ends and of their upper ends, time-weighted as the figure is.
std::optional<PowerRange> percentile_of(const WindowBounds& w, const GridSeries& g, double q) {
    std::vector<std::pair<double, double>> lows;
    std::vector<std::pair<double, double>> highs;
    lows.reserve(w.low.size());
    highs.reserve(w.low.size());
    double total = 0;
    for (std::size_t i = 0; i < w.low.size(); ++i) {
        const double s = seconds_between(g, i, i + 1);
        lows.emplace_back(w.low[i] / s, s);
        highs.emplace_back(w.high[i] / s, s);
        total += s;
    }
    std::ranges::sort(lows);
    std::ranges::sort(highs);
    return range_of(w, percentile(lows, total, q), percentile(highs, total, q));
}

} // namespace

std::optional<PowerRange> node_peak_bound(const RunData& d, const GridSeries& g) {
    const auto sources = node_sources(d);
    const auto w = sources ? window_bounds(d, *sources, g) : std::nullopt;
    return w ? peak_of(*w, g) : std::nullopt;
}

void add_distribution_bounds(const RunData& d, const GridSeries& g, Distribution& out) {
    const auto sources = node_sources(d);
    const auto w = sources ? window_bounds(d, *sources, g) : std::nullopt;
    if (!w) {
        return;
    }
    out.peak_bound = peak_of(*w, g);
    out.peak_1s_bound = moving_peak_of(*w, g, moving_steps(g, 1.0));
    out.peak_60s_bound = moving_peak_of(*w, g, moving_steps(g, 60.0));
    out.p50_bound = percentile_of(*w, g, 0.50);
    out.p95_bound = percentile_of(*w, g, 0.95);
    out.p99_bound = percentile_of(*w, g, 0.99);
}

std::optional<PowerRange> counter_peak_bound(const RunData& d, std::size_t i, const GridSeries& g) {
    auto s = source_of(d, i);
    if (!s || !s->counter) {
        return std::nullopt;
    }
    const std::vector<Source> one{*s};
    const auto w = window_bounds(d, one, g);
    return w ? peak_of(*w, g) : std::nullopt;
}

std::vector<BandPoint> node_power_band(const RunData& d, int windows) {
    const auto sources = node_sources(d);
    if (!sources || d.t1 <= d.t0 || windows < 1) {
        return {};
    }
    // Even cuts, no closer than the coarsest source's resolution, moved onto the first
    // counter's readings (a power field's bound is no tighter at its readings).
    std::int64_t step = (d.t1 - d.t0) / windows;
    for (const auto& s : *sources) {
        step = std::max(step, d.timing[s.channel].resolution_ns);
    }
    std::vector<std::int64_t> even;
    for (auto t = d.t0; t < d.t1; t += std::max<std::int64_t>(step, 1)) {
        even.push_back(t);
    }
    even.push_back(d.t1);
    const auto counter =
        std::ranges::find_if(*sources, [](const Source& s) { return s.counter.has_value(); });
    const auto cuts =
        counter == sources->end() ? even : snap_to_readings(even, d.series[counter->channel]);
    std::vector<BandPoint> out;
    out.reserve(cuts.size());
    const auto span = static_cast<double>(d.t1 - d.t0);
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
        const auto a = cuts[k];
        const auto b = cuts[k + 1];
        const auto e = node_bound(d, *sources, a, b);
        if (!e) {
            return {};
        }
        const double seconds = static_cast<double>(b - a) * 1e-9;
        BandPoint p{(static_cast<double>(a - d.t0) + static_cast<double>(b - a) / 2) / span,
                    e->low / seconds, e->high / seconds, e->assumed};
        out.push_back(p); // windows between an anchored counter's reads follow its profile
    }
    return out;
}

} // namespace jp::report
