// SPDX-License-Identifier: BSD-3-Clause
#include "report/power_band.hpp"

#include "report/share_bound.hpp"
#include "report/window.hpp"

#include <algorithm>
#include <optional>
#include <span>

namespace jp::report {
namespace {

struct Counter {
    std::size_t channel = 0;
    CounterLimits limits;
};

// The counters the node's energy is made of, or nullopt where one of them has no bound.
std::optional<std::vector<Counter>> node_counters(const RunData& d) {
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
    std::vector<Counter> out;
    for (const auto i : channels) {
        if ((*d.channels)[i].quantity != Quantity::energy || d.series[i].empty() ||
            !d.estimated[i].empty()) {
            return std::nullopt;
        }
        out.push_back({i, counter_limits(d, i)});
    }
    if (out.empty()) {
        return std::nullopt;
    }
    return out;
}

// The node's energy over [a, b] as its counters bound it, summed; nullopt where one has none.
std::optional<Bound>
node_bound(const RunData& d, const std::vector<Counter>& counters, std::int64_t a, std::int64_t b) {
    std::optional<Bound> sum = Bound{};
    for (const auto& c : counters) {
        sum = sum_of(sum, counter_bound(d.series[c.channel], a, b, c.limits));
    }
    return sum;
}

// Each grid window's energy as the counters bound it, and the counters' summed ranges at
// each cut (for windows of several steps).
struct WindowBounds {
    std::vector<double> low;    // J, per window: the counters' lower ends added
    std::vector<double> high;   // J
    std::vector<double> cut_lo; // J, per cut (n + 1): the counters' ranges there, added
    std::vector<double> cut_hi;
    bool max_assumed = false;
    bool profile_assumed = false;
};

std::optional<WindowBounds>
window_bounds(const RunData& d, const std::vector<Counter>& counters, const GridSeries& g) {
    const auto n = g.watts.size();
    if (n == 0 || g.step_ns <= 0) {
        return std::nullopt;
    }
    // Window i is [cut(i), cut(i + 1)]: each counter's range at each cut, its readings walked
    // once (a day at 10 ms is millions of windows), the ends summed over the counters as
    // counter_bound() takes them.
    const auto cut = [&](std::size_t i) {
        return i < n ? g.t0 + static_cast<std::int64_t>(i) * g.step_ns : g.t1;
    };
    WindowBounds w{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0),
                   std::vector<double>(n + 1, 0.0), std::vector<double>(n + 1, 0.0)};
    for (const auto& c : counters) {
        const std::span<const TimedValue> r = d.series[c.channel];
        std::size_t k = 0; // the first reading at or after the cut
        CounterRange before{};
        for (std::size_t i = 0; i <= n; ++i) {
            const auto t = cut(i);
            while (k < r.size() && r[k].t_ns < t) {
                ++k;
            }
            const auto from = k == 0 ? 0 : k - 1;
            const auto here =
                counter_range(r.subspan(from, std::min(r.size(), k + 1) - from), t, c.limits);
            if (i > 0) {
                w.low[i - 1] += std::max(0.0, here.lo - before.hi);
                // Never more than it can draw over the window (as counter_bound() cuts it).
                const double most =
                    c.limits.max_watts * static_cast<double>(t - cut(i - 1)) * 1e-9 +
                    2 * c.limits.quantum_j;
                w.high[i - 1] += std::min(here.hi - before.lo, most);
            }
            w.cut_lo[i] += here.lo;
            w.cut_hi[i] += here.hi;
            before = here;
        }
        w.max_assumed = w.max_assumed || c.limits.max_assumed;
        // Windows between an anchored counter's reads follow its profile.
        w.profile_assumed = w.profile_assumed || (d.profiled[c.channel] && n > 1);
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (cut(i + 1) <= cut(i)) {
            return std::nullopt;
        }
    }
    return w;
}

double seconds_between(const GridSeries& g, std::size_t a, std::size_t b) {
    const auto cut = [&](std::size_t i) {
        return i < g.watts.size() ? g.t0 + static_cast<std::int64_t>(i) * g.step_ns : g.t1;
    };
    return static_cast<double>(cut(b) - cut(a)) * 1e-9;
}

std::optional<PowerRange> peak_of(const WindowBounds& w, const GridSeries& g) {
    PowerRange out{0, 0, w.max_assumed, w.profile_assumed};
    for (std::size_t i = 0; i < w.low.size(); ++i) {
        const double s = seconds_between(g, i, i + 1);
        out.low_w = std::max(out.low_w, w.low[i] / s);
        out.high_w = std::max(out.high_w, w.high[i] / s);
    }
    return out;
}

// The truth's highest mean over `steps` windows in a row: between the highest of their
// lower ends and the highest of their upper ends (each from the ranges at its two cuts).
std::optional<PowerRange>
moving_peak_of(const WindowBounds& w, const GridSeries& g, std::optional<std::size_t> steps) {
    if (!steps || *steps == 0 || *steps > w.low.size()) {
        return std::nullopt;
    }
    PowerRange out{0, 0, w.max_assumed, w.profile_assumed};
    for (std::size_t i = 0; i + *steps <= w.low.size(); ++i) {
        const double s = seconds_between(g, i, i + *steps);
        out.low_w = std::max(out.low_w, std::max(0.0, w.cut_lo[i + *steps] - w.cut_hi[i]) / s);
        out.high_w = std::max(out.high_w, (w.cut_hi[i + *steps] - w.cut_lo[i]) / s);
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
    return PowerRange{percentile(lows, total, q), percentile(highs, total, q), w.max_assumed,
                      w.profile_assumed};
}

} // namespace

std::optional<PowerRange> node_peak_bound(const RunData& d, const GridSeries& g) {
    const auto counters = node_counters(d);
    const auto w = counters ? window_bounds(d, *counters, g) : std::nullopt;
    return w ? peak_of(*w, g) : std::nullopt;
}

void add_distribution_bounds(const RunData& d, const GridSeries& g, Distribution& out) {
    const auto counters = node_counters(d);
    const auto w = counters ? window_bounds(d, *counters, g) : std::nullopt;
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
    const auto& c = (*d.channels)[i];
    if (c.quantity != Quantity::energy || d.series[i].empty() || !d.estimated[i].empty()) {
        return std::nullopt;
    }
    const std::vector<Counter> one{{i, counter_limits(d, i)}};
    const auto w = window_bounds(d, one, g);
    return w ? peak_of(*w, g) : std::nullopt;
}

std::vector<BandPoint> node_power_band(const RunData& d, int windows) {
    const auto counters = node_counters(d);
    if (!counters || d.t1 <= d.t0 || windows < 1) {
        return {};
    }
    // Even cuts, no closer than the coarsest counter's resolution, moved onto the first
    // counter's readings.
    std::int64_t step = (d.t1 - d.t0) / windows;
    for (const auto& c : *counters) {
        step = std::max(step, d.timing[c.channel].resolution_ns);
    }
    std::vector<std::int64_t> even;
    for (auto t = d.t0; t < d.t1; t += std::max<std::int64_t>(step, 1)) {
        even.push_back(t);
    }
    even.push_back(d.t1);
    const auto cuts = snap_to_readings(even, d.series[counters->front().channel]);
    std::vector<BandPoint> out;
    out.reserve(cuts.size());
    const auto span = static_cast<double>(d.t1 - d.t0);
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
        const auto a = cuts[k];
        const auto b = cuts[k + 1];
        const auto e = node_bound(d, *counters, a, b);
        if (!e) {
            return {};
        }
        const double seconds = static_cast<double>(b - a) * 1e-9;
        out.push_back({(static_cast<double>(a - d.t0) + static_cast<double>(b - a) / 2) / span,
                       e->low / seconds, e->high / seconds});
    }
    return out;
}

} // namespace jp::report
