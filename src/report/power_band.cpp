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

} // namespace

std::optional<PowerRange> node_peak_bound(const RunData& d, const GridSeries& g) {
    const auto counters = node_counters(d);
    const auto n = g.watts.size();
    if (!counters || n == 0 || g.step_ns <= 0) {
        return std::nullopt;
    }
    // Window i is [cut(i), cut(i + 1)]: each counter's range at each cut, its readings walked
    // once (a day at 10 ms is millions of windows), the ends summed over the counters as
    // counter_bound() takes them.
    const auto cut = [&](std::size_t i) {
        return i < n ? g.t0 + static_cast<std::int64_t>(i) * g.step_ns : g.t1;
    };
    std::vector<double> low(n, 0.0);
    std::vector<double> high(n, 0.0);
    bool max_assumed = false;
    bool profile_assumed = false;
    for (const auto& c : *counters) {
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
                low[i - 1] += std::max(0.0, here.lo - before.hi);
                high[i - 1] += here.hi - before.lo;
            }
            before = here;
        }
        max_assumed = max_assumed || c.limits.max_assumed;
        // Windows between an anchored counter's reads follow its profile.
        profile_assumed = profile_assumed || (d.profiled[c.channel] && n > 1);
    }
    PowerRange out{0, 0, max_assumed, profile_assumed};
    for (std::size_t i = 0; i < n; ++i) {
        const double s = static_cast<double>(cut(i + 1) - cut(i)) * 1e-9;
        if (s <= 0) {
            return std::nullopt;
        }
        out.low_w = std::max(out.low_w, low[i] / s);
        out.high_w = std::max(out.high_w, high[i] / s);
    }
    return out;
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
