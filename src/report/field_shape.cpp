// SPDX-License-Identifier: BSD-3-Clause
#include "report/field_shape.hpp"

#include <algorithm>
#include <cmath>

namespace jp::report {
namespace {

// A power reading above this (a megawatt per GPU) is no GPU's: it shapes nothing.
constexpr double k_max_field_watts = 1e6;

double seconds(std::int64_t ns) {
    return static_cast<double>(ns) * 1e-9;
}

// The readings' value at t: linear between two, held outside them.
double value_at(std::span<const TimedValue> p, std::int64_t t) {
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

} // namespace

FieldIntegral::FieldIntegral(std::span<const TimedValue> readings) : m_p(readings) {
    m_cum.reserve(m_p.size());
    double sum = 0;
    for (std::size_t i = 0; i < m_p.size(); ++i) {
        if (i > 0) {
            sum += 0.5 * (m_p[i - 1].value + m_p[i].value) * seconds(m_p[i].t_ns - m_p[i - 1].t_ns);
        }
        m_cum.push_back(sum);
    }
}

double FieldIntegral::operator()(std::int64_t t) const {
    if (t <= m_p.front().t_ns) {
        return -m_p.front().value * seconds(m_p.front().t_ns - t);
    }
    if (t >= m_p.back().t_ns) {
        return m_cum.back() + m_p.back().value * seconds(t - m_p.back().t_ns);
    }
    const auto it = std::ranges::upper_bound(m_p, t, {}, &TimedValue::t_ns);
    const auto i = static_cast<std::size_t>(it - m_p.begin()) - 1;
    const auto& a = m_p[i];
    const double v = value_at(m_p, t);
    return m_cum[i] + 0.5 * (a.value + v) * seconds(t - a.t_ns);
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

std::vector<TimedValue> level_and_detail(std::span<const TimedValue> level,
                                         std::span<const TimedValue> instant,
                                         std::int64_t window_ns) {
    if (level.size() < 2 || instant.size() < 2 || window_ns <= 0) {
        return {level.begin(), level.end()};
    }
    const FieldIntegral g{instant};
    const std::int64_t half = window_ns / 2;
    std::vector<TimedValue> out;
    out.reserve(instant.size());
    for (const auto& i : instant) {
        // The instant readings' mean over the window around t, over the part they cover.
        const std::int64_t lo = std::max(i.t_ns - half, instant.front().t_ns);
        const std::int64_t hi = std::min(i.t_ns + half, instant.back().t_ns);
        const double mean = hi > lo ? (g(hi) - g(lo)) / seconds(hi - lo) : i.value;
        out.push_back({i.t_ns, std::max(0.0, value_at(level, i.t_ns) + i.value - mean)});
    }
    return out;
}

} // namespace jp::report
