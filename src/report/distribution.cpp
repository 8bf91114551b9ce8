// SPDX-License-Identifier: BSD-3-Clause
#include "report/distribution.hpp"

#include "report/summary.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

namespace jp::report {
namespace {

// Highest mean over any window of `seconds` (a whole number of grid steps).
std::optional<double> moving_peak(const GridSeries& g, double seconds) {
    const auto steps = moving_steps(g, seconds);
    if (!steps) {
        return std::nullopt;
    }
    const auto k = *steps;
    double sum =
        std::accumulate(g.watts.begin(), g.watts.begin() + static_cast<std::ptrdiff_t>(k), 0.0);
    double best = sum;
    for (std::size_t i = k; i < g.watts.size(); ++i) {
        sum += g.watts[i] - g.watts[i - k];
        best = std::max(best, sum);
    }
    return best / static_cast<double>(k);
}

} // namespace

std::optional<std::size_t> moving_steps(const GridSeries& g, double seconds) {
    const double step_s = static_cast<double>(g.step_ns) * 1e-9;
    if (g.watts.empty() || step_s <= 0 || step_s > seconds + 1e-9) {
        return std::nullopt;
    }
    const auto k = static_cast<std::size_t>(std::llround(seconds / step_s));
    if (k == 0 || k > g.watts.size()) {
        return std::nullopt;
    }
    return k;
}

double percentile(const std::vector<std::pair<double, double>>& sorted, double total, double q) {
    double acc = 0;
    for (const auto& [w, seconds] : sorted) {
        acc += seconds;
        if (acc >= q * total - 1e-12) {
            return w;
        }
    }
    return sorted.empty() ? 0 : sorted.back().first;
}

Distribution power_distribution(const GridSeries& series, std::optional<double> threshold_w) {
    const auto& g = series;
    Distribution d;
    d.threshold_w = threshold_w;
    if (g.watts.empty()) {
        return d;
    }
    std::vector<std::pair<double, double>> by_power; // watts, seconds
    double total = 0;
    double joules = 0;
    for (std::size_t i = 0; i < g.watts.size(); ++i) {
        const double s = g.seconds_of(i);
        by_power.emplace_back(g.watts[i], s);
        total += s;
        joules += g.watts[i] * s;
        if (threshold_w && g.watts[i] > *threshold_w) {
            d.seconds_above += s;
        }
    }
    std::ranges::sort(by_power);
    d.mean_w = total > 0 ? joules / total : 0;
    d.peak_w = by_power.back().first;
    d.peak_1s_w = moving_peak(g, 1.0);
    d.peak_60s_w = moving_peak(g, 60.0);
    d.p50_w = percentile(by_power, total, 0.50);
    d.p95_w = percentile(by_power, total, 0.95);
    d.p99_w = percentile(by_power, total, 0.99);
    return d;
}

std::optional<Rating> rated_power(const trace::Reader& reader) {
    if (auto rated = node_facts(reader).rated_watts) {
        return Rating{*rated, "config"};
    }
    double sum = 0;
    bool missing = false;
    std::string parts;
    for (const auto& c : reader.channels()) {
        if (c.counted && c.domain != Domain::node && c.quantity != Quantity::utilization) {
            if (!c.limit_watts) {
                missing = true; // a part without a limit: the sum would understate the rating
                continue;
            }
            sum += *c.limit_watts;
            parts += fmt::format("{}{} {:g} W", parts.empty() ? "" : ", ", c.name, *c.limit_watts);
        }
    }
    for (const auto& c : reader.channels()) {
        if (c.counted && c.domain == Domain::node && c.limit_watts) {
            return Rating{*c.limit_watts, "node power cap reported by " + c.backend};
        }
    }
    if (sum <= 0 || missing) {
        return std::nullopt;
    }
    return Rating{sum, "sum of part limits (" + parts + ")"};
}

} // namespace jp::report
