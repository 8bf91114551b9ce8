// SPDX-License-Identifier: BSD-3-Clause
#include "core/integrate.hpp"

#include <algorithm>

namespace jp {

double interpolate(std::span<const TimedValue> s, std::int64_t t) noexcept {
    if (t <= s.front().t_ns) {
        return s.front().value;
    }
    if (t >= s.back().t_ns) {
        return s.back().value;
    }
    const auto it = std::ranges::upper_bound(s, t, {}, &TimedValue::t_ns); // first > t
    const auto& b = *it;
    const auto& a = *(it - 1);
    if (b.t_ns == a.t_ns) {
        return b.value;
    }
    const double f = static_cast<double>(t - a.t_ns) / static_cast<double>(b.t_ns - a.t_ns);
    return a.value + f * (b.value - a.value);
}

double interpolate_before(std::span<const TimedValue> s, std::int64_t t) noexcept {
    const auto it = std::ranges::lower_bound(s, t, {}, &TimedValue::t_ns); // first >= t
    if (it != s.end() && it->t_ns == t) {
        return it->value;
    }
    return interpolate(s, t);
}

double trapezoid_joules(std::span<const TimedValue> s, std::int64_t t0, std::int64_t t1) noexcept {
    if (s.empty() || t1 <= t0) {
        return 0.0;
    }
    double joules = 0;
    std::int64_t prev_t = t0;
    double prev_v = interpolate(s, t0);
    // Start at the first sample after t0: windows over long series stay O(log n + k).
    const auto first = std::ranges::upper_bound(s, t0, {}, &TimedValue::t_ns);
    for (const auto& p : std::span{first, s.end()}) {
        if (p.t_ns >= t1) {
            break;
        }
        joules += 0.5 * (prev_v + p.value) * static_cast<double>(p.t_ns - prev_t) * 1e-9;
        prev_t = p.t_ns;
        prev_v = p.value;
    }
    const double end_v = interpolate_before(s, t1);
    joules += 0.5 * (prev_v + end_v) * static_cast<double>(t1 - prev_t) * 1e-9;
    return joules;
}

} // namespace jp
