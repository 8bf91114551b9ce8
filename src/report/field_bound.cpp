// SPDX-License-Identifier: BSD-3-Clause
#include "report/field_bound.hpp"

#include "core/counter.hpp"
#include "core/seconds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace jp::report {
namespace {

// The part of (a, b] inside [t0, t1], in nanoseconds.
std::int64_t overlap_ns(std::int64_t a, std::int64_t b, std::int64_t t0, std::int64_t t1) noexcept {
    return std::max<std::int64_t>(0, std::min(b, t1) - std::max(a, t0));
}

// Where the readings put the energy over the window: joules.
struct Open {
    double low = 0;
    double high = 0;
    BoundTerms terms;
    double sum = 0; // averaged: the readings' part of the figure
};

// ∫(χ − w)⁺ and ∫(w − χ)⁺ for χ the window [t0, t1] and w a sum of boxes (from, to, height).
struct Boxes {
    std::vector<std::pair<std::int64_t, double>> steps;
    void add(std::int64_t from, std::int64_t to, double h) {
        if (to > from) {
            steps.emplace_back(from, h);
            steps.emplace_back(to, -h);
        }
    }
    [[nodiscard]] std::pair<double, double> open(std::int64_t t0, std::int64_t t1) const {
        auto s = steps;
        s.emplace_back(t0, -1.0); // χ − w: the window counts +1, each box −h
        s.emplace_back(t1, 1.0);
        std::ranges::sort(s);
        double above = 0; // ∫(χ − w)⁺
        double below = 0; // ∫(w − χ)⁺
        double w_minus_chi = 0;
        for (std::size_t i = 0; i + 1 < s.size(); ++i) {
            w_minus_chi += s[i].second;
            const double dt = seconds_from_ns(s[i + 1].first - s[i].first);
            above += std::max(0.0, -w_minus_chi) * dt;
            below += std::max(0.0, w_minus_chi) * dt;
        }
        return {above, below};
    }
};

// Averaged readings: knots in pairs (the span before a reading, its value held). Reading k is
// the mean over its window [y_k − A, y_k], y_k up to U before it was read; the figure weighs
// it by c_k, the part of its span inside [t0, t1]. `alike`: every reading lags by the same
// (the windows follow one another); else each by its own.
Open averaged(std::span<const TimedValue> k,
              std::int64_t t0,
              std::int64_t t1,
              const FieldLimits& l,
              bool alike) {
    Open out;
    double& sum = out.sum;
    Boxes lowest;  // where a window surely lies, whatever its lag
    Boxes highest; // where it may lie
    const auto first = std::ranges::lower_bound(k, t0, {}, &TimedValue::t_ns) - k.begin();
    std::int64_t covered = 0;
    for (auto i = std::max<std::ptrdiff_t>(0, (first - 1) & ~std::ptrdiff_t{1});
         i + 1 < static_cast<std::ptrdiff_t>(k.size()); i += 2) {
        const auto a = k[static_cast<std::size_t>(i)].t_ns;
        const auto b = k[static_cast<std::size_t>(i) + 1].t_ns;
        if (a > t1) {
            break;
        }
        const auto c = overlap_ns(a, b, t0, t1);
        covered += c;
        if (c <= 0 || b <= a) {
            continue;
        }
        const auto window = l.window_ns > 0 ? l.window_ns : b - a;
        const double h = seconds_from_ns(c) / seconds_from_ns(window);
        sum += seconds_from_ns(c) * k[static_cast<std::size_t>(i) + 1].value;
        out.terms.quantum += 2 * seconds_from_ns(c) * l.quantum_w;
        const auto lag = alike ? 0 : l.update_ns;
        lowest.add(b - window, b - lag, h);
        highest.add(b - lag - window, b, h);
    }
    const double above = lowest.open(t0, t1).first;   // ∫(χ − w_min)⁺
    const double below = highest.open(t0, t1).second; // ∫(w_max − χ)⁺
    // Where no reading's span reaches, nothing is known (a gap, the run before the first
    // reading); the rest of what the windows leave open is theirs.
    const double uncovered = l.max_watts * std::max(0.0, seconds_from_ns(t1 - t0 - covered));
    out.terms.gap = std::min(uncovered, l.max_watts * (above + below));
    out.terms.field = l.max_watts * (above + below) - out.terms.gap;
    out.low = sum - out.terms.quantum / 2 - l.max_watts * below;
    out.high = sum + out.terms.quantum / 2 + l.max_watts * above;
    if (alike) { // the whole series shifted by up to U: at most P·U each way
        const double lag = l.max_watts * seconds_from_ns(l.update_ns);
        out.low -= lag;
        out.high += lag;
        out.terms.lag = 2 * lag;
    }
    return out;
}

// Instantaneous readings: reading k shows the power at an instant x_k up to U before it was
// read (each its own), and between x_k and x_{k+1} the power stays between their values. At
// t, the readings whose span may hold t are those from the last read at or before t to the
// first read more than U after it: the power at t lies within their values. Before the first
// reading, in the last U before the last (t may lie after its instant), across a gap and
// after the readings: anything from 0 to P.
Open instantaneous(std::span<const TimedValue> r,
                   std::int64_t t0,
                   std::int64_t t1,
                   const FieldLimits& l) {
    Open out;
    const auto u = l.update_ns;
    // The cuts: t0, t1 and each reading's time and that less U inside them, in order (two
    // sorted streams merged: a day's readings are a million).
    const auto from = std::max<std::ptrdiff_t>(
        0, std::ranges::lower_bound(r, t0, {}, &TimedValue::t_ns) - r.begin() - 1);
    std::vector<std::int64_t> cuts{t0};
    for (auto i = from, j = from;
         i < static_cast<std::ptrdiff_t>(r.size()) || j < static_cast<std::ptrdiff_t>(r.size());) {
        const auto at = [&](std::ptrdiff_t k) { return r[static_cast<std::size_t>(k)].t_ns; };
        const bool take_lagged = j < static_cast<std::ptrdiff_t>(r.size()) &&
                                 (i >= static_cast<std::ptrdiff_t>(r.size()) || at(j) - u <= at(i));
        const auto t = take_lagged ? at(j++) - u : at(i++);
        if (t >= t1 && take_lagged) {
            break; // the lagged stream is the later one's lower end: nothing more inside
        }
        if (t > cuts.back() && t < t1) {
            cuts.push_back(t);
        }
    }
    cuts.push_back(t1);
    const auto n = static_cast<std::ptrdiff_t>(r.size());
    std::ptrdiff_t after = from; // the first reading after mid
    std::ptrdiff_t last = from;  // the first reading more than U after mid
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
        const double s = seconds_from_ns(cuts[i + 1] - cuts[i]);
        if (s <= 0) {
            continue;
        }
        const auto mid = cuts[i] + (cuts[i + 1] - cuts[i]) / 2;
        // The spans [x_k, x_{k+1}] that may hold mid: k from the last reading at or before
        // mid (after − 1) to the last read no more than U after it (last − 1).
        while (after < n && r[static_cast<std::size_t>(after)].t_ns <= mid) {
            ++after;
        }
        last = std::max(last, after);
        while (last < n && r[static_cast<std::size_t>(last)].t_ns <= mid + u) {
            ++last;
        }
        // Unknown before the first reading, where mid may lie past the last reading's instant,
        // and (always sound, and it keeps a day's readings linear) where U spans too many.
        constexpr std::ptrdiff_t k_most_readings = 256;
        bool known = after > 0 && last < n && last - after < k_most_readings;
        double lo = std::numeric_limits<double>::max();
        double hi = 0;
        for (auto j = after - 1; known && j <= last; ++j) {
            const auto& v = r[static_cast<std::size_t>(j)];
            if (j < last && l.gap_ns > 0 &&
                r[static_cast<std::size_t>(j) + 1].t_ns - v.t_ns > l.gap_ns) {
                known = false; // a gap: the assumption does not reach across it
            }
            lo = std::min(lo, v.value);
            hi = std::max(hi, v.value);
        }
        if (!known) { // within U before the last reading: its lag; else no reading there
            out.high += l.max_watts * s;
            (after > 0 && after < n && last >= n ? out.terms.lag : out.terms.gap) +=
                l.max_watts * s;
            continue;
        }
        out.low += std::max(0.0, lo - l.quantum_w) * s;
        out.high += (hi + l.quantum_w) * s;
        out.terms.quantum += 2 * l.quantum_w * s;
        out.terms.field += (hi - lo) * s;
    }
    return out;
}

// A window's bound from what the readings leave open, cut at what is physically possible.
Bound bound_of(const Open& open, std::int64_t t0, std::int64_t t1, const FieldLimits& l) {
    const double most = l.max_watts * seconds_from_ns(t1 - t0);
    Bound b{std::clamp(open.low, 0.0, most),
            std::clamp(open.high, 0.0, most),
            {},
            {.peak = l.max_assumed},
            open.terms};
    b.dominant = dominant_of(b.terms);
    return b;
}

// The median of the positive spacings of the readings (0 with none).
std::int64_t median_spacing(std::span<const TimedValue> r) {
    std::vector<std::int64_t> d;
    for (std::size_t i = 1; i < r.size(); ++i) {
        if (r[i].t_ns > r[i - 1].t_ns) {
            d.push_back(r[i].t_ns - r[i - 1].t_ns);
        }
    }
    if (d.empty()) {
        return 0;
    }
    std::ranges::nth_element(d, d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2));
    return d[d.size() / 2];
}

} // namespace

double field_quantum(const Channel& c) noexcept {
    const auto backend = source_backend(c);
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
    // A reading above the most it may draw says the limit is wrong: the readings' highest.
    l.max_watts = std::max(cl.max_watts, seen_peak_w.value_or(0));
    l.max_assumed = cl.max_assumed;
    l.averaged = c.mean_since_previous && knots.size() >= 2;
    l.window_ns = c.averaging_ns.value_or(0);
    // A reading lags the power by up to the source's update: its own figure, else learned
    // from repeats, else (a value new at every reading) the readings' usual spacing.
    const auto spacing = median_spacing(knots);
    l.update_ns = c.update_ns.value_or(t.update_learned ? t.update_ns : spacing);
    l.gap_ns = spacing > std::numeric_limits<std::int64_t>::max() / 5 ? 0 : spacing * 5 / 2;
    l.read_ns = t.read_ns;
    l.negative = std::ranges::any_of(knots, [](const TimedValue& v) { return !(v.value >= 0); });
    return l;
}

namespace {

// The bound where each reading's stamp is when its value was taken, up to U late (l.read_ns
// and l.negative are not looked at).
std::optional<Bound> stamped_bound(std::span<const TimedValue> knots,
                                   std::int64_t t0,
                                   std::int64_t t1,
                                   const FieldLimits& l) {
    if (knots.empty() || t1 < t0) {
        return std::nullopt;
    }
    if (t1 == t0) {
        return Bound{0, 0, "quantum", {.peak = l.max_assumed}, {}};
    }
    if (knots.size() < 2) { // one reading: nothing between readings is known
        Open none;
        none.high = l.max_watts * seconds_from_ns(t1 - t0);
        none.terms.gap = none.high;
        return bound_of(none, t0, t1, l);
    }
    if (!l.averaged) {
        auto b = bound_of(instantaneous(knots, t0, t1, l), t0, t1, l);
        b.assumed.field = true;
        return b;
    }
    // Each reading its own lag: a guarantee. Where that says nothing useful (a window read as
    // often as it updates can be read twice and the next one never), the windows taken to
    // follow one another, said with the figure.
    const auto open = averaged(knots, t0, t1, l, false);
    const auto own = bound_of(open, t0, t1, l);
    if (own.half_width() <= open.sum || l.update_ns <= 0) { // no lag: the same bound
        return own;
    }
    auto b = bound_of(averaged(knots, t0, t1, l, true), t0, t1, l);
    if (b.half_width() >= own.half_width()) {
        return own; // the assumption would buy nothing
    }
    b.assumed.windows = true;
    return b;
}

} // namespace

std::optional<Bound> field_bound(std::span<const TimedValue> knots,
                                 std::int64_t t0,
                                 std::int64_t t1,
                                 const FieldLimits& l) {
    // A value stamped at its call's middle (rounded down) was taken within half a call (rounded
    // up) of it: as if stamped half a call later and up to U and a whole call late.
    const std::int64_t half = l.read_ns > 0 ? (l.read_ns + 1) / 2 : 0;
    FieldLimits wide = l;
    wide.read_ns = 0;
    wide.update_ns += 2 * half;
    // Only the readings that can reach [t0, t1] are looked at (a day's readings are a million,
    // and the profile's band and peaks ask for a bound per window): from two before the first
    // within reach (whole pairs, for averaged readings) to two after the last.
    const std::int64_t reach = wide.update_ns + l.window_ns + l.gap_ns + half;
    const auto by_time = [&](std::int64_t t) {
        return std::ranges::lower_bound(knots, t, {}, &TimedValue::t_ns) - knots.begin();
    };
    auto from = std::max<std::ptrdiff_t>(0, by_time(t0 - reach) - 2);
    if (l.averaged) {
        from &= ~std::ptrdiff_t{1};
    }
    const auto to = std::min(static_cast<std::ptrdiff_t>(knots.size()), by_time(t1 + reach) + 3);
    const auto near =
        knots.subspan(static_cast<std::size_t>(from),
                      static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, to - from)));
    // A negative power is no reading: the figure has no bound (anywhere in the series, as
    // field_limits found; here, near the window).
    if (l.negative ||
        std::ranges::any_of(near, [](const TimedValue& v) { return !(v.value >= 0); })) {
        return std::nullopt;
    }
    FieldLimits exact = l;
    exact.read_ns = 0;
    if (half == 0) {
        return stamped_bound(near, t0, t1, exact);
    }
    std::vector<TimedValue> later(near.begin(), near.end());
    for (auto& k : later) {
        k.t_ns += half;
    }
    auto b = stamped_bound(later, t0, t1, wide);
    const auto without = stamped_bound(near, t0, t1, exact);
    // What the call adds, beside what the readings would leave open were each taken at its
    // stamp (the terms as they are where moving the stamps left less open).
    if (b && without && b->terms.total() >= without->terms.total()) {
        const double read = b->terms.total() - without->terms.total();
        b->terms = without->terms;
        b->terms.read += read;
        b->dominant = dominant_of(b->terms);
    }
    return b;
}

} // namespace jp::report
