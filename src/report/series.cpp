// SPDX-License-Identifier: BSD-3-Clause
#include "report/series.hpp"

#include "report/anchored.hpp"
#include "report/summary.hpp"

#include <algorithm>

namespace jp::report {
namespace {

// interpolate() and the search behind it, for queries at non-decreasing times:
// the cursor only moves forward, so a whole grid costs one pass.
class Cursor {
public:
    Cursor(std::span<const TimedValue> p, std::int64_t from) : m_p(p) {
        const auto it = std::ranges::upper_bound(p, from, {}, &TimedValue::t_ns);
        m_k = static_cast<std::size_t>(std::max<std::ptrdiff_t>(it - p.begin() - 1, 0));
    }

    // Index of the first sample later than t (std::upper_bound).
    std::size_t upper(std::int64_t t) {
        while (m_k < m_p.size() && m_p[m_k].t_ns <= t) {
            ++m_k;
        }
        return m_k;
    }

    double at(std::int64_t t) {
        if (t <= m_p.front().t_ns) {
            return m_p.front().value;
        }
        if (t >= m_p.back().t_ns) {
            return m_p.back().value;
        }
        const std::size_t k = upper(t);
        const auto& b = m_p[k];
        const auto& a = m_p[k - 1];
        if (b.t_ns == a.t_ns) {
            return b.value;
        }
        const double f = static_cast<double>(t - a.t_ns) / static_cast<double>(b.t_ns - a.t_ns);
        return a.value + f * (b.value - a.value);
    }

    // interpolate_before(): the value just before a step at t.
    double before(std::int64_t t) {
        const std::size_t k = upper(t);
        std::size_t j = k;
        while (j > 0 && m_p[j - 1].t_ns == t) {
            --j;
        }
        return j < k ? m_p[j].value : at(t);
    }

    // trapezoid_joules(p, a, b) for a at or after the previous call's b.
    double trapezoid(std::int64_t a, std::int64_t b) {
        if (b <= a) {
            return 0.0;
        }
        double joules = 0;
        std::int64_t prev_t = a;
        double prev_v = at(a);
        for (std::size_t j = upper(a); j < m_p.size() && m_p[j].t_ns < b; ++j) {
            joules +=
                0.5 * (prev_v + m_p[j].value) * static_cast<double>(m_p[j].t_ns - prev_t) * 1e-9;
            prev_t = m_p[j].t_ns;
            prev_v = m_p[j].value;
        }
        const double end_v = before(b);
        joules += 0.5 * (prev_v + end_v) * static_cast<double>(b - prev_t) * 1e-9;
        return joules;
    }

private:
    std::span<const TimedValue> m_p;
    std::size_t m_k = 0;
};

} // namespace

double
window_watts(const Channel& c, std::span<const TimedValue> p, std::int64_t a, std::int64_t b) {
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
    return static_cast<double>(std::min(step_ns, t1 - a)) * 1e-9;
}

std::int64_t
bounded_step(std::int64_t step, std::int64_t t0, std::int64_t t1, std::size_t knots) noexcept {
    if (step <= 0 || t1 <= t0) {
        return step;
    }
    const auto most = std::min(k_max_grid_windows,
                               k_windows_per_knot * static_cast<std::int64_t>(std::min<std::size_t>(
                                                        knots, k_max_grid_windows)) +
                                   16);
    const auto span = t1 - t0;
    return std::max(step, span / most + (span % most != 0 ? 1 : 0));
}

namespace {

// channel_grid() at exactly `step` (the caller bounded it).
GridSeries grid_windows(const Channel& channel,
                        std::span<const TimedValue> points,
                        std::int64_t t0,
                        std::int64_t t1,
                        std::int64_t step) {
    GridSeries g{t0, t1, step, {}};
    if (step <= 0 || t1 <= t0) {
        g.step_ns = 0;
        return g;
    }
    g.watts.reserve(static_cast<std::size_t>((t1 - t0) / step + 1));
    Cursor cur{points, t0};
    for (std::int64_t a = t0, b = 0; a < t1; a = b) {
        b = t1 - a > step ? a + step : t1; // never past t1, so never past the int64 range
        if (b - a < step / 2 && a > t0) {
            g.t1 = a; // a short tail window is quantisation noise
            break;
        }
        const double dt = static_cast<double>(b - a) * 1e-9;
        double w = 0;
        if (!points.empty() && channel.quantity == Quantity::energy) {
            const double ea = cur.at(a); // a before b: the cursor only moves forward
            w = (cur.at(b) - ea) / dt;
        } else if (!points.empty()) {
            w = cur.trapezoid(a, b) / dt;
        }
        g.watts.push_back(w);
    }
    return g;
}

} // namespace

GridSeries channel_grid(const Channel& channel,
                        std::span<const TimedValue> points,
                        std::int64_t t0,
                        std::int64_t t1,
                        std::int64_t step) {
    return grid_windows(channel, points, t0, t1, bounded_step(step, t0, t1, points.size()));
}

PowerInputs power_inputs(std::span<const Channel* const> channels,
                         std::vector<trace::ChannelSamples> readings) {
    PowerInputs in;
    for (std::size_t i = 0; i < channels.size(); ++i) {
        in.timing.push_back(timing_of(*channels[i], readings[i].points, readings[i].flags));
        in.knots.push_back(
            knots_of(*channels[i], std::move(readings[i].points), readings[i].flags));
    }
    for (std::size_t i = 0; i < channels.size(); ++i) {
        in.channels.push_back({channels[i], in.knots[i], in.timing[i].resolution_ns});
    }
    return in;
}

GridSeries grid_of(std::span<const ChannelData> channels,
                   std::int64_t t0,
                   std::int64_t t1,
                   double offset_w,
                   std::int64_t step) {
    std::size_t knots = 0;
    for (const auto& c : channels) {
        knots = std::max(knots, c.knots.size());
    }
    if (step <= 0) {
        for (const auto& c : channels) {
            step = std::max(step, c.resolution_ns);
        }
    }
    step = bounded_step(step, t0, t1, knots);
    GridSeries g{t0, t1, step, {}};
    if (step <= 0 || t1 <= t0) {
        g.step_ns = 0;
        return g;
    }
    for (const auto& c : channels) {
        const auto one = grid_windows(*c.channel, c.knots, t0, t1, step);
        if (g.watts.empty()) {
            g.t1 = one.t1;
            g.watts.assign(one.watts.size(), offset_w);
        }
        for (std::size_t i = 0; i < one.watts.size() && i < g.watts.size(); ++i) {
            g.watts[i] += one.watts[i];
        }
    }
    if (channels.empty()) {
        g.step_ns = 0;
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
    const auto profiles = profile_index(chans);
    std::vector<const Channel*> parts;
    std::vector<trace::ChannelSamples> readings;
    const Channel* node = nullptr;
    trace::ChannelSamples node_readings;
    for (std::size_t i = 0; i < chans.size(); ++i) {
        const auto& c = chans[i];
        if (!c.counted || c.quantity == Quantity::utilization ||
            ((node != nullptr) && c.domain == Domain::node)) {
            continue;
        }
        auto s = run_readings(reader, run.id, i, profiles);
        if (!s) {
            return std::unexpected(s.error());
        }
        if (c.domain == Domain::node) {
            node = &c;
            node_readings = std::move(*s);
        } else {
            parts.push_back(&c);
            readings.push_back(std::move(*s));
        }
    }
    const auto [t0, t1] = *window;
    if (node != nullptr) {
        std::vector<trace::ChannelSamples> one;
        one.push_back(std::move(node_readings));
        const auto in = power_inputs({&node, 1}, std::move(one));
        return grid_of(in.channels, t0, t1, 0, step);
    }
    const auto in = power_inputs(parts, std::move(readings));
    return grid_of(in.channels, t0, t1, node_facts(reader).rest_watts.value_or(0), step);
}

} // namespace jp::report
