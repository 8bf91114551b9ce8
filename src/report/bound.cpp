// SPDX-License-Identifier: BSD-3-Clause
#include "report/bound.hpp"

#include "core/counter.hpp"
#include "trace/types.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace jp::report {
namespace {

constexpr double k_ns = 1e-9;

} // namespace

// A reading v stamped at s shows the counter as it was at some instant in
// [s - U - r, s + r] (U its update period, r half the longest read call: the stamp is the
// call's middle), truncated to its quantum q, and the counter only grows, by at most max_watts.
CounterRange
counter_range(std::span<const TimedValue> r, std::int64_t t, const CounterLimits& l) noexcept {
    const auto after = std::ranges::lower_bound(r, t, {}, &TimedValue::t_ns);
    const std::int64_t half = l.half_read_ns();
    const auto joules = [&](std::int64_t ns) {
        return l.max_watts * static_cast<double>(std::max<std::int64_t>(ns, 0)) * k_ns;
    };
    CounterRange out{-1e300, 1e300};
    if (after != r.begin()) { // a reading at or before t
        const auto& a = *std::prev(after);
        out.lo = std::max(out.lo, a.value - joules(a.t_ns + half - t));
        out.hi = std::min(out.hi, a.value + l.quantum_j + joules(t - a.t_ns + l.update_ns + half));
    }
    if (after != r.end()) { // a reading at or after t
        const auto& b = *after;
        out.hi = std::min(out.hi, b.value + l.quantum_j + joules(l.update_ns + half));
        out.lo = std::max(out.lo, b.value - joules(b.t_ns + half - t));
    }
    return out;
}

std::string_view dominant_of(const BoundTerms& t) noexcept {
    const double most =
        std::max({t.quantum, t.lag, t.gap, t.jump, t.knee, t.shared, t.field, t.wrap, t.read});
    return most == t.wrap      ? "ambiguous wrap"
           : most == t.jump    ? "counter jump"
           : most == t.quantum ? "quantum"
           : most == t.lag     ? "edge staleness"
           : most == t.gap     ? "gap between readings"
           : most == t.knee    ? "idle power crossing"
           : most == t.field   ? "power between readings"
           : most == t.read    ? "read time"
                               : "who used a shared GPU";
}

namespace {

BoundTerms terms_of(const Bound& b, const CounterLimits& l) {
    BoundTerms t;
    t.quantum = 2 * l.quantum_j;
    t.lag = 2 * l.max_watts * static_cast<double>(l.update_ns) * k_ns;
    const std::int64_t call = 2 * l.half_read_ns(); // as counter_range widens each side
    t.read = 2 * l.max_watts * static_cast<double>(call) * k_ns;
    t.gap = std::max(0.0, (b.high - b.low) - t.quantum - t.lag - t.read);
    return t;
}

} // namespace

std::optional<Bound> sum_of(const std::optional<Bound>& a, const std::optional<Bound>& b) {
    if (!a || !b) {
        return std::nullopt;
    }
    Bound sum{a->low + b->low, a->high + b->high,
              a->half_width() >= b->half_width() ? a->dominant : b->dominant,
              a->assumed | b->assumed, a->terms};
    sum.terms += b->terms;
    return sum;
}

std::string_view source_backend(const Channel& c) noexcept {
    const std::string_view backend = c.backend;
    if (backend != "jouleprofd") {
        return backend;
    }
    const std::string_view source = c.source;
    return source.substr(0, source.find(' '));
}

namespace {

// A Redfish BMC gives an energy in kWh (EnergykWh, a Sensor's kW.h) or Wh with as many
// decimals as it keeps: three is common, DMTF's public-rackmount1 mockup gives whole kWh
// (3.6 MJ a step). The joules one unit stands for, or 0 for a reading in joules.
double redfish_unit_joules(const Channel& c) noexcept {
    if (c.source.find("kWh") != std::string::npos || c.source.find("kW.h") != std::string::npos) {
        return 3.6e6;
    }
    return c.source.find("(W.h)") != std::string::npos ? 3.6e3 : 0.0;
}

// The step of such a counter: the largest that every change between two consecutive
// readings is a whole number of (their greatest common divisor, in millionths of the unit),
// the changes across an estimated span (a jump's estimate, which is no multiple of anything)
// left out. The true step divides every change, so it is never larger (the safe side); with
// no change seen, a whole unit. Changes that are no whole number of millionths leave the
// three decimals most BMCs give.
double decimal_step(double unit_j,
                    std::span<const TimedValue> readings,
                    std::span<const EstimatedSpan> estimated) noexcept {
    const double fine = unit_j * 1e-6;
    // Within 1 mJ (a tenth of a millionth of a Wh: 0.36 mJ): a kWh or Wh figure's conversion
    // to joules is exact to ~0.1 mJ up to 1 TJ.
    const double tolerance = std::min(fine / 10, 1e-3);
    std::int64_t common = 0;
    for (std::size_t i = 1; i < readings.size(); ++i) {
        const auto a = readings[i - 1].t_ns;
        const auto b = readings[i].t_ns;
        if (std::ranges::any_of(
                estimated, [&](const EstimatedSpan& s) { return s.from_ns < b && a < s.to_ns; })) {
            continue;
        }
        const double d = std::abs(readings[i].value - readings[i - 1].value);
        const double n = std::round(d / fine);
        if (std::abs(d - n * fine) >= tolerance || n >= 9e15) {
            return unit_j * 1e-3;
        }
        common = std::gcd(common, static_cast<std::int64_t>(n));
    }
    constexpr std::int64_t k_millionths = 1'000'000;
    return common == 0 ? unit_j : static_cast<double>(std::min(common, k_millionths)) * fine;
}

} // namespace

double quantum_of(const Channel& c) noexcept {
    const auto backend = source_backend(c);
    if (backend == "powercap" || backend == "perf_rapl" || backend == "hwmon") {
        return 1.0 / 16384; // RAPL's energy status unit is 2^-14 J or finer (61 µJ)
    }
    if (backend == "pm_counters" || backend == "slurm" || backend == "ipmi") {
        return 1.0; // whole joules
    }
    if (backend == "redfish") { // kWh to three decimals is 3.6 kJ a step (limits_of: its own)
        const double unit = redfish_unit_joules(c);
        return unit > 0 ? unit * 1e-3 : 1.0;
    }
    return 1e-3; // NVML, ROCm SMI and the rest: a millijoule
}

CounterLimits limits_of(const Channel& c,
                        const Timing& t,
                        std::span<const TimedValue> readings,
                        std::optional<double> seen_peak_w,
                        std::span<const EstimatedSpan> estimated) noexcept {
    CounterLimits l{quantum_of(c), plausible_max_watts(c), c.update_ns.value_or(0), false,
                    t.read_ns};
    if (const double unit = redfish_unit_joules(c); unit > 0 && source_backend(c) == "redfish") {
        l.quantum_j = decimal_step(unit, readings, estimated); // the decimals the BMC gives
    }
    const bool stated = c.max_watts.value_or(0) > 0 || c.limit_watts.value_or(0) > 0;
    if (!stated && seen_peak_w && *seen_peak_w > 0) {
        l.max_watts = std::min(l.max_watts, 2 * *seen_peak_w);
        l.max_assumed = true;
    }
    // The longest a reading can lag: the backend's figure; where readings repeat (the
    // period is learned), the longest time between two changes seen, as updates need
    // not be regular; where the value changed at every reading and the backend says
    // nothing, the longest spacing of the readings.
    std::int64_t longest = 0;
    for (std::size_t i = 1; i < readings.size(); ++i) {
        const auto a = readings[i - 1].t_ns;
        const auto b = readings[i].t_ns;
        const bool across = std::ranges::any_of(
            estimated, [&](const EstimatedSpan& s) { return s.from_ns < b && a < s.to_ns; });
        if (!across) {
            longest = std::max(longest, b - a);
        }
    }
    if (t.update_learned || l.update_ns <= 0) {
        // The stamps the gaps are measured between may each be half a read call off.
        l.update_ns = std::max(l.update_ns, longest + 2 * l.half_read_ns());
    }
    return l;
}

std::optional<Bound> counter_bound(std::span<const TimedValue> readings,
                                   std::int64_t t0,
                                   std::int64_t t1,
                                   const CounterLimits& limits) noexcept {
    if (readings.empty() || t1 < t0) {
        return std::nullopt;
    }
    if (t1 == t0) { // an empty window: exactly nothing
        return Bound{0, 0, "quantum", {.peak = limits.max_assumed}, {}};
    }
    const auto start = counter_range(readings, t0, limits);
    const auto end = counter_range(readings, t1, limits);
    // Never more than the most it can draw over the window, and its quantum at each edge.
    const double most =
        limits.max_watts * static_cast<double>(t1 - t0) * k_ns + 2 * limits.quantum_j;
    Bound b{std::max(0.0, end.lo - start.hi),
            std::min(end.hi - start.lo, most),
            {},
            {.peak = limits.max_assumed},
            {}};
    b.high = std::max(b.high, b.low);
    // The terms, as they enter the width: each edge's quantum and lag; the rest
    // is the distance of the edges from the readings that bracket them.
    b.terms = terms_of(b, limits);
    b.dominant = dominant_of(b.terms);
    return b;
}

std::vector<EstimatedSpan> estimated_spans(std::span<const TimedValue> readings,
                                           std::span<const std::uint8_t> flags) {
    std::vector<EstimatedSpan> out;
    if (flags.size() != readings.size()) {
        return out;
    }
    bool open = false;
    for (std::size_t i = 0; i < readings.size(); ++i) {
        const bool jump = (flags[i] & trace::k_flag_jump) != 0;
        if (jump && !open) {
            out.push_back({i > 0 ? readings[i - 1].t_ns : readings[i].t_ns, readings[i].t_ns});
            open = true;
        } else if (open) {
            out.back().to_ns = readings[i].t_ns; // the reading that ends it, or the next jump
            open = jump;
        }
    }
    if (open) { // the run ended in it: its last readings are estimates too
        out.back().to_ns = std::numeric_limits<std::int64_t>::max();
    }
    return out;
}

std::vector<EstimatedSpan> with_ambiguous_wraps(std::vector<EstimatedSpan> spans,
                                                std::span<const TimedValue> readings,
                                                const Channel& c) {
    const double range = c.wrap_joules.value_or(0);
    const double most = plausible_max_watts(c);
    if (range <= 0 || most <= 0) {
        return spans;
    }
    // Longer than this between two readings, and the counter may have wrapped twice.
    const double wrap_s = range / most;
    for (std::size_t i = 1; i < readings.size(); ++i) {
        const auto a = readings[i - 1].t_ns;
        const auto b = readings[i].t_ns;
        if (static_cast<double>(b - a) * k_ns > wrap_s) {
            spans.push_back({a, b, true});
        }
    }
    std::ranges::sort(spans, {}, &EstimatedSpan::from_ns);
    std::vector<EstimatedSpan> out;
    for (const auto& s : spans) {
        if (!out.empty() && s.from_ns <= out.back().to_ns) {
            out.back().to_ns = std::max(out.back().to_ns, s.to_ns);
            out.back().wrap = out.back().wrap && s.wrap;
        } else {
            out.push_back(s);
        }
    }
    return out;
}

std::optional<Bound> counter_bound(std::span<const TimedValue> readings,
                                   std::int64_t t0,
                                   std::int64_t t1,
                                   const CounterLimits& limits,
                                   std::span<const EstimatedSpan> estimated) noexcept {
    if (estimated.empty()) {
        return counter_bound(readings, t0, t1, limits);
    }
    if (readings.empty() || t1 < t0) {
        return std::nullopt;
    }
    Bound total{0, 0, {}, {.peak = limits.max_assumed}, {}};
    BoundTerms terms;
    // The readings in [from, to] bound the piece of [t0, t1] they cover.
    const auto piece = [&](std::int64_t from, std::int64_t to) {
        const auto a = std::max(t0, from);
        const auto b = std::min(t1, to);
        if (a > b) {
            return;
        }
        const auto first = std::ranges::lower_bound(readings, from, {}, &TimedValue::t_ns);
        const auto last = std::ranges::upper_bound(readings, to, {}, &TimedValue::t_ns);
        const auto sub = counter_bound(std::span{first, last}, a, b, limits);
        if (!sub) { // no reading there (the run ended in a jump): anything it could draw
            const double most = limits.max_watts * static_cast<double>(b - a) * k_ns;
            total.high += most;
            terms.jump += most;
            return;
        }
        total.low += sub->low;
        total.high += sub->high;
        const auto t = terms_of(*sub, limits);
        terms.quantum += t.quantum;
        terms.lag += t.lag;
        terms.read += t.read;
        terms.gap += t.gap;
    };
    auto from = std::numeric_limits<std::int64_t>::min();
    for (const auto& span : estimated) {
        piece(from, span.from_ns);
        const auto a = std::max(t0, span.from_ns);
        const auto b = std::min(t1, span.to_ns);
        if (a < b) {
            const double most = limits.max_watts * static_cast<double>(b - a) * k_ns;
            total.high += most;
            (span.wrap ? terms.wrap : terms.jump) += most;
        }
        from = span.to_ns;
    }
    piece(from, std::numeric_limits<std::int64_t>::max());
    total.terms = terms;
    total.dominant = dominant_of(terms);
    return total;
}

} // namespace jp::report
