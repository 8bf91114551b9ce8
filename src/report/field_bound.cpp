// SPDX-License-Identifier: BSD-3-Clause
#include "report/field_bound.hpp"

#include "core/counter.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace jp::report {
namespace {

constexpr double k_ns = 1e-9;

double seconds(std::int64_t ns) noexcept {
    return static_cast<double>(ns) * k_ns;
}

// The part of (a, b] inside [t0, t1], in seconds.
double overlap(std::int64_t a, std::int64_t b, std::int64_t t0, std::int64_t t1) noexcept {
    return seconds(std::max<std::int64_t>(0, std::min(b, t1) - std::max(a, t0)));
}

// Where the readings put the energy over the window, before their lag: joules.
struct Open {
    double low = 0;
    double high = 0;
    BoundTerms terms;
};

// Averaged readings: knots come in pairs (the span before a reading, its value held). Each
// reading k is the mean over its window [b_k − A_k, b_k]; the figure weighs it by c_k, the
// part of its span inside [t0, t1]. With w = Σ c_k/A_k over each window, the truth is the
// sum plus ∫ p·(χ − w), which the most the domain can draw bounds on each side.
Open averaged(std::span<const TimedValue> k,
              std::int64_t t0,
              std::int64_t t1,
              const FieldLimits& l) {
    Open out;
    double sum = 0; // the readings' part of the figure
    std::vector<std::pair<std::int64_t, double>> steps{{t0, 1.0}, {t1, -1.0}}; // χ − w
    std::int64_t covered = 0;
    for (std::size_t i = 0; i + 1 < k.size(); i += 2) {
        const auto a = k[i].t_ns;
        const auto b = k[i + 1].t_ns;
        const double c = overlap(a, b, t0, t1);
        covered += std::max<std::int64_t>(0, std::min(b, t1) - std::max(a, t0));
        if (c <= 0 || b <= a) {
            continue;
        }
        const auto window = l.window_ns > 0 ? l.window_ns : b - a;
        const double w = c / seconds(window);
        sum += c * k[i + 1].value;
        out.terms.quantum += 2 * c * l.quantum_w;
        steps.emplace_back(b - window, -w);
        steps.emplace_back(b, w);
    }
    std::ranges::sort(steps);
    double pos = 0;
    double neg = 0;
    double rho = 0;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        rho += steps[i].second;
        if (i + 1 < steps.size()) {
            const double dt = seconds(steps[i + 1].first - steps[i].first);
            pos += std::max(0.0, rho) * dt;
            neg += std::max(0.0, -rho) * dt;
        }
    }
    // Where no reading's span reaches: nothing is known there (a gap, or the run before the
    // first reading); the rest of what the windows leave open is theirs.
    const double uncovered = l.max_watts * std::max(0.0, seconds(t1 - t0 - covered));
    out.terms.gap = uncovered;
    out.terms.field = std::max(0.0, l.max_watts * (pos + neg) - uncovered);
    out.low = sum - out.terms.quantum / 2 - l.max_watts * neg;
    out.high = sum + out.terms.quantum / 2 + l.max_watts * pos;
    return out;
}

// Instantaneous readings: between two neighbours no further apart than the gap allows, the
// power between their values; elsewhere anything the domain can draw.
Open instantaneous(std::span<const TimedValue> r,
                   std::int64_t t0,
                   std::int64_t t1,
                   const FieldLimits& l) {
    Open out;
    const auto unknown = [&](double s) {
        out.high += l.max_watts * s;
        out.terms.gap += l.max_watts * s;
    };
    unknown(overlap(t0, r.front().t_ns, t0, t1) + overlap(r.back().t_ns, t1, t0, t1));
    auto i = std::ranges::upper_bound(r, t0, {}, &TimedValue::t_ns) - r.begin();
    i = std::max<std::ptrdiff_t>(i - 1, 0);
    for (auto j = static_cast<std::size_t>(i); j + 1 < r.size() && r[j].t_ns < t1; ++j) {
        const auto& a = r[j];
        const auto& b = r[j + 1];
        const double s = overlap(a.t_ns, b.t_ns, t0, t1);
        if (s <= 0) {
            continue;
        }
        if (l.gap_ns > 0 && b.t_ns - a.t_ns > l.gap_ns) {
            unknown(s);
            continue;
        }
        const auto [lo, hi] = std::minmax(a.value, b.value);
        out.low += std::max(0.0, lo - l.quantum_w) * s;
        out.high += (hi + l.quantum_w) * s;
        out.terms.quantum += 2 * l.quantum_w * s;
        out.terms.field += (hi - lo) * s;
    }
    return out;
}

} // namespace

double field_quantum(const Channel& c) noexcept {
    std::string_view backend = c.backend;
    if (backend == "jouleprofd") {
        const std::string_view source = c.source;
        backend = source.substr(0, source.find(' '));
    }
    if (backend == "ipmi" || backend == "redfish" || backend == "slurm") {
        return 1.0;
    }
    if (backend == "hwmon") {
        return 1e-6;
    }
    return 1e-3;
}

FieldLimits field_limits(const Channel& c,
                         const Timing& t,
                         std::span<const TimedValue> knots,
                         std::optional<double> seen_peak_w) noexcept {
    const auto cl = limits_of(c, t, knots, seen_peak_w);
    FieldLimits l;
    l.quantum_w = field_quantum(c);
    l.max_watts = cl.max_watts;
    l.update_ns = cl.update_ns;
    l.max_assumed = cl.max_assumed;
    l.averaged = c.mean_since_previous && knots.size() >= 2;
    l.window_ns = c.averaging_ns.value_or(0);
    l.gap_ns = t.sample_ns > 0 ? t.sample_ns * 5 / 2 : 0;
    return l;
}

std::optional<Bound> field_bound(std::span<const TimedValue> knots,
                                 std::int64_t t0,
                                 std::int64_t t1,
                                 const FieldLimits& l) {
    if (knots.empty() || t1 < t0) {
        return std::nullopt;
    }
    if (t1 == t0) {
        return Bound{0, 0, "quantum", l.max_assumed, false, {}, !l.averaged};
    }
    const auto open = l.averaged ? averaged(knots, t0, t1, l) : instantaneous(knots, t0, t1, l);
    // A reading that lags the power by up to U: the series shifted, at most P·U each way.
    const double lag = l.max_watts * seconds(l.update_ns);
    Bound b{std::max(0.0, open.low - lag),
            open.high + lag,
            {},
            l.max_assumed,
            false,
            open.terms,
            !l.averaged};
    b.terms.lag = 2 * lag;
    b.dominant = dominant_of(b.terms);
    return b;
}

} // namespace jp::report
