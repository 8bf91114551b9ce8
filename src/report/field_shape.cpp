// SPDX-License-Identifier: BSD-3-Clause
#include "report/field_shape.hpp"

#include "core/seconds.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace jp::report {
namespace {

// A power reading above this (a megawatt per GPU) is no GPU's: it shapes nothing.
constexpr double k_max_field_watts = 1e6;

} // namespace

double interpolated_at(std::span<const TimedValue> readings, std::int64_t t) {
    const auto& p = readings;
    if (t <= p.front().t_ns) {
        return p.front().value;
    }
    if (t >= p.back().t_ns) {
        return p.back().value;
    }
    const auto it = std::ranges::upper_bound(p, t, {}, &TimedValue::t_ns);
    const auto& b = *it;
    const auto& a = *(it - 1);
    return a.value + (b.value - a.value) * static_cast<double>(t - a.t_ns) /
                         static_cast<double>(b.t_ns - a.t_ns);
}

FieldIntegral::FieldIntegral(std::span<const TimedValue> readings) : m_p(readings) {
    m_cum.reserve(m_p.size());
    double sum = 0;
    for (std::size_t i = 0; i < m_p.size(); ++i) {
        if (i > 0) {
            sum += 0.5 * (m_p[i - 1].value + m_p[i].value) *
                   seconds_from_ns(m_p[i].t_ns - m_p[i - 1].t_ns);
        }
        m_cum.push_back(sum);
    }
}

double FieldIntegral::operator()(std::int64_t t) const {
    if (t <= m_p.front().t_ns) {
        return -m_p.front().value * seconds_from_ns(m_p.front().t_ns - t);
    }
    if (t >= m_p.back().t_ns) {
        return m_cum.back() + m_p.back().value * seconds_from_ns(t - m_p.back().t_ns);
    }
    const auto it = std::ranges::upper_bound(m_p, t, {}, &TimedValue::t_ns);
    const auto i = static_cast<std::size_t>(it - m_p.begin()) - 1;
    const auto& a = m_p[i];
    const double v = interpolated_at(m_p, t);
    return m_cum[i] + 0.5 * (a.value + v) * seconds_from_ns(t - a.t_ns);
}

std::vector<TimedValue> usable_power(std::span<const TimedValue> readings, std::int64_t centre_ns) {
    std::vector<TimedValue> out;
    out.reserve(readings.size());
    for (const auto& v : readings) {
        if (std::isfinite(v.value) && v.value >= 0 && v.value <= k_max_field_watts) {
            out.push_back({v.t_ns - centre_ns, v.value});
        }
    }
    return out;
}

Shape level_and_detail(std::span<const TimedValue> level,
                       std::span<const TimedValue> instant,
                       std::int64_t window_ns,
                       std::int64_t max_gap_ns) {
    Shape out;
    if (level.size() < 2 || instant.size() < 2 || window_ns <= 0) {
        out.points.assign(level.begin(), level.end());
        return out;
    }
    const FieldIntegral g{instant};
    const std::int64_t half = window_ns / 2;
    // The detailed points, and the time each stretch of them covers.
    std::vector<TimedValue> detail;
    std::vector<std::pair<std::int64_t, std::int64_t>> covered;
    for (std::size_t first = 0; first < instant.size();) {
        std::size_t last = first;
        while (last + 1 < instant.size() &&
               instant[last + 1].t_ns - instant[last].t_ns <= max_gap_ns) {
            ++last;
        }
        if (last > first) {
            const std::int64_t from = instant[first].t_ns;
            const std::int64_t to = instant[last].t_ns;
            covered.emplace_back(from, to);
            for (std::size_t i = first; i <= last; ++i) {
                // The window centred on the reading, narrowed to fit the stretch: towards its
                // ends the detail fades to none (a mean over one side of a change would be
                // the change's own half, and a falling edge would take the shape below zero).
                const std::int64_t t = instant[i].t_ns;
                const std::int64_t h = std::min({half, t - from, to - t});
                const double mean =
                    h > 0 ? (g(t + h) - g(t - h)) / seconds_from_ns(2 * h) : instant[i].value;
                // After the level's last reading (a mean stands half its window back, so the
                // run's last half second has none) the level is only held: the instant
                // reading is all that is known there.
                const double level_here = t > level.back().t_ns ? mean : interpolated_at(level, t);
                detail.push_back({t, std::max(0.0, level_here + instant[i].value - mean)});
                if (h > 0) {
                    out.detail_from_ns = out.detailed == 0 ? t : out.detail_from_ns;
                    out.detail_to_ns = t;
                    ++out.detailed;
                }
            }
        }
        first = last + 1;
    }
    // The level's readings outside what the detail covers, merged in time with the detail.
    out.points.reserve(level.size() + detail.size());
    auto d = detail.begin();
    auto c = covered.begin();
    for (const auto& l : level) {
        while (d != detail.end() && d->t_ns < l.t_ns) {
            out.points.push_back(*d++);
        }
        while (c != covered.end() && c->second < l.t_ns) {
            ++c;
        }
        if (c == covered.end() || l.t_ns < c->first) {
            out.points.push_back(l);
        }
    }
    out.points.insert(out.points.end(), d, detail.end());
    return out;
}

} // namespace jp::report
