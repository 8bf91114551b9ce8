#include "report/series.hpp"

#include "report/summary.hpp"

#include <algorithm>

namespace jp::report {

std::int64_t median_step(const std::vector<TimedValue>& p) {
    if (p.size() < 2) {
        return 0;
    }
    std::vector<std::int64_t> d;
    d.reserve(p.size() - 1);
    for (std::size_t i = 1; i < p.size(); ++i) {
        d.push_back(p[i].t_ns - p[i - 1].t_ns);
    }
    std::ranges::nth_element(d, d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2));
    return d[d.size() / 2];
}

double
window_watts(const Channel& c, const std::vector<TimedValue>& p, std::int64_t a, std::int64_t b) {
    const double dt = static_cast<double>(b - a) * 1e-9;
    if (dt <= 0 || p.empty()) {
        return 0;
    }
    if (c.quantity == Quantity::energy) {
        return (interpolate(p, b) - interpolate(p, a)) / dt;
    }
    return trapezoid_joules(p, a, b) / dt;
}

double GridSeries::seconds_of(std::size_t i) const noexcept {
    const auto a = t0 + static_cast<std::int64_t>(i) * step_ns;
    return static_cast<double>(std::min(a + step_ns, t1) - a) * 1e-9;
}

GridSeries grid_of(std::span<const ChannelData> channels,
                   std::int64_t t0,
                   std::int64_t t1,
                   double offset_w,
                   std::int64_t step) {
    GridSeries g{t0, t1, step, {}};
    if (g.step_ns <= 0) {
        for (const auto& c : channels) {
            const auto m = median_step(*c.points);
            g.step_ns = g.step_ns == 0 ? m : (m > 0 ? std::min(g.step_ns, m) : g.step_ns);
        }
    }
    if (g.step_ns <= 0 || t1 <= t0) {
        g.step_ns = 0;
        return g;
    }
    for (std::int64_t a = t0; a < t1; a += g.step_ns) {
        const std::int64_t b = std::min(a + g.step_ns, t1);
        if (b - a < g.step_ns / 2 && a > t0) {
            g.t1 = a; // a short tail window is quantisation noise
            break;
        }
        double w = offset_w;
        for (const auto& c : channels) {
            w += window_watts(*c.channel, *c.points, a, b);
        }
        g.watts.push_back(w);
    }
    return g;
}

Result<std::pair<std::int64_t, std::int64_t>> run_window(trace::Reader& reader,
                                                         const trace::RunInfo& run) {
    if (run.end_ns) {
        return std::pair{run.start_ns, *run.end_ns};
    }
    auto last = reader.last_sample_time(run.id);
    if (!last) {
        return std::unexpected(last.error());
    }
    return std::pair{run.start_ns, last->value_or(run.start_ns)};
}

Result<GridSeries>
node_power_series(trace::Reader& reader, const trace::RunInfo& run, std::int64_t step) {
    auto window = run_window(reader, run);
    if (!window) {
        return std::unexpected(window.error());
    }
    const auto& chans = reader.channels();
    std::vector<std::vector<TimedValue>> points(chans.size());
    std::vector<ChannelData> parts;
    std::optional<std::size_t> node;
    for (std::size_t i = 0; i < chans.size(); ++i) {
        const auto& c = chans[i];
        if (!c.counted || c.quantity == Quantity::utilization) {
            continue;
        }
        auto s = reader.samples(run.id, i);
        if (!s) {
            return std::unexpected(s.error());
        }
        points[i] = std::move(s->points);
        if (c.domain == Domain::node && !node) {
            node = i;
        } else if (c.domain != Domain::node) {
            parts.push_back({&c, &points[i]});
        }
    }
    const auto [t0, t1] = *window;
    if (node) {
        const ChannelData only{&chans[*node], &points[*node]};
        return grid_of({&only, 1}, t0, t1, 0, step);
    }
    return grid_of(parts, t0, t1, node_facts(reader).rest_watts.value_or(0), step);
}

} // namespace jp::report
