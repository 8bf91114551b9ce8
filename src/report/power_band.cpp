// SPDX-License-Identifier: BSD-3-Clause
#include "report/power_band.hpp"

#include "report/share_bound.hpp"
#include "report/window.hpp"

#include <algorithm>
#include <optional>
#include <utility>

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
std::optional<std::pair<double, double>>
node_bound(const RunData& d, const std::vector<Counter>& counters, std::int64_t a, std::int64_t b) {
    double low = 0;
    double high = 0;
    for (const auto& c : counters) {
        const auto bound = counter_bound(d.series[c.channel], a, b, c.limits);
        if (!bound) {
            return std::nullopt;
        }
        low += bound->low;
        high += bound->high;
    }
    return std::pair{low, high};
}

} // namespace

std::optional<PowerRange> node_peak_bound(const RunData& d, const GridSeries& g) {
    const auto counters = node_counters(d);
    if (!counters || g.watts.empty() || g.step_ns <= 0) {
        return std::nullopt;
    }
    std::optional<PowerRange> out;
    for (std::size_t i = 0; i < g.watts.size(); ++i) {
        const auto a = g.t0 + static_cast<std::int64_t>(i) * g.step_ns;
        const auto b = std::min(a + g.step_ns, g.t1);
        const auto e = node_bound(d, *counters, a, b);
        if (!e || b <= a) {
            return std::nullopt;
        }
        const double s = static_cast<double>(b - a) * 1e-9;
        const PowerRange w{e->first / s, e->second / s};
        out = out ? PowerRange{std::max(out->low_w, w.low_w), std::max(out->high_w, w.high_w)} : w;
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
                       e->first / seconds, e->second / seconds});
    }
    return out;
}

} // namespace jp::report
