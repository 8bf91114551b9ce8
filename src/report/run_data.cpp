// SPDX-License-Identifier: BSD-3-Clause
// A run's samples loaded once, with running integrals so that the energy of
// any window costs a binary search, whatever the run's length.
#include "report/anchored.hpp"
#include "report/window.hpp"

#include <algorithm>
#include <cmath>

namespace jp::report {
namespace {

std::vector<double> running_integral(const std::vector<TimedValue>& p) {
    std::vector<double> f(p.size(), 0.0);
    for (std::size_t i = 1; i < p.size(); ++i) {
        f[i] = f[i - 1] + 0.5 * (p[i - 1].value + p[i].value) *
                              static_cast<double>(p[i].t_ns - p[i - 1].t_ns) * 1e-9;
    }
    return f;
}

// ∫ from the first sample to t of the linearly interpolated series (held
// constant outside it): the same integral as trapezoid_joules.
double cumulative(const std::vector<TimedValue>& p, const std::vector<double>& f, std::int64_t t) {
    if (t <= p.front().t_ns) {
        return p.front().value * static_cast<double>(t - p.front().t_ns) * 1e-9;
    }
    if (t >= p.back().t_ns) {
        return f.back() + p.back().value * static_cast<double>(t - p.back().t_ns) * 1e-9;
    }
    const auto it = std::ranges::upper_bound(p, t, {}, &TimedValue::t_ns); // first > t
    const auto i = static_cast<std::size_t>(it - p.begin()) - 1;
    const auto& a = p[i];
    const auto& b = p[i + 1];
    const double v = a.value + static_cast<double>(t - a.t_ns) /
                                   static_cast<double>(b.t_ns - a.t_ns) * (b.value - a.value);
    return f[i] + 0.5 * (a.value + v) * static_cast<double>(t - a.t_ns) * 1e-9;
}

// A reading that is not a number (the monitor never writes one; a hand-made or damaged
// trace can hold it) is no reading: dropped with its flags.
void drop_non_finite(trace::ChannelSamples& s) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        if (std::isfinite(s.points[i].value)) {
            s.points[kept] = s.points[i];
            if (i < s.flags.size()) {
                s.flags[kept] = s.flags[i];
            }
            ++kept;
        }
    }
    s.points.resize(kept);
    s.flags.resize(std::min(s.flags.size(), kept));
}

bool in_node_grid(const RunData& d, std::size_t i) {
    const auto& c = (*d.channels)[i];
    if (d.node_channel) {
        return i == *d.node_channel;
    }
    return c.counted && c.quantity != Quantity::utilization && c.domain != Domain::node;
}

} // namespace

Result<RunData> load_run(trace::Reader& reader, const trace::RunInfo& run) {
    auto window = run_window(reader, run);
    if (!window) {
        return std::unexpected(window.error());
    }
    RunData d;
    d.channels = &reader.channels();
    d.facts = node_facts(reader);
    std::tie(d.t0, d.t1) = *window;
    const auto profiles = profile_index(*d.channels);
    auto read_times = reader.read_times(run.id);
    if (!read_times) {
        return std::unexpected(read_times.error());
    }
    for (std::size_t i = 0; i < d.channels->size(); ++i) {
        auto s = run_readings(reader, run.id, i, profiles);
        if (!s) {
            return std::unexpected(s.error());
        }
        drop_non_finite(*s);
        const auto& c = (*d.channels)[i];
        d.timing.push_back(timing_of(c, s->points, s->flags));
        d.timing.back().read_ns = (*read_times)[i];
        d.profiled.push_back(shaped_by_profile(s->flags));
        d.estimated.push_back(
            c.quantity == Quantity::energy
                ? with_ambiguous_wraps(estimated_spans(s->points, s->flags), s->points, c)
                : std::vector<EstimatedSpan>{});
        auto knots = knots_of(c, std::move(s->points), s->flags);
        d.integral.push_back(c.quantity == Quantity::energy ? std::vector<double>{}
                                                            : running_integral(knots));
        d.series.push_back(std::move(knots));
        if (c.domain == Domain::node && c.counted && c.quantity != Quantity::utilization &&
            !d.node_channel) {
            d.node_channel = i;
        }
    }
    return d;
}

double integral_of(const RunData& d, std::size_t i, std::int64_t a, std::int64_t b) {
    const auto& p = d.series[i];
    if (p.empty() || b <= a) {
        return 0;
    }
    if ((*d.channels)[i].quantity == Quantity::energy) {
        return interpolate(p, b) - interpolate(p, a);
    }
    return cumulative(p, d.integral[i], b) - cumulative(p, d.integral[i], a);
}

std::span<const TimedValue>
samples_around(const RunData& d, std::size_t i, std::int64_t a, std::int64_t b) {
    const auto& p = d.series[i];
    auto lo = std::ranges::upper_bound(p, a, {}, &TimedValue::t_ns);
    auto hi = std::ranges::lower_bound(p, b, {}, &TimedValue::t_ns);
    lo = lo == p.begin() ? lo : lo - 1;
    hi = hi == p.end() ? hi : hi + 1;
    return {lo, hi};
}

GridSeries node_grid(const RunData& d, std::int64_t t0, std::int64_t t1) {
    std::vector<ChannelData> chans;
    for (std::size_t i = 0; i < d.channels->size(); ++i) {
        if (in_node_grid(d, i)) {
            chans.push_back({&(*d.channels)[i], d.series[i], d.timing[i].resolution_ns});
        }
    }
    const double offset = d.node_channel ? 0.0 : d.facts.rest_watts.value_or(0);
    return grid_of(chans, t0, t1, offset);
}

std::vector<std::string> timing_notes(const RunData& d) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < d.channels->size(); ++i) {
        if (d.profiled[i]) {
            continue; // its profile's note and its coverage say how fine it is
        }
        if (auto note = timing_note((*d.channels)[i], d.timing[i]); !note.empty()) {
            out.push_back(std::move(note));
        }
    }
    return out;
}

} // namespace jp::report
