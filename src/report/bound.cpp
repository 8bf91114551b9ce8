// SPDX-License-Identifier: BSD-3-Clause
#include "report/bound.hpp"

#include "core/counter.hpp"

#include <algorithm>

namespace jp::report {
namespace {

constexpr double k_ns = 1e-9;

// Where the counter can be at t: a reading v taken at s shows the counter as it
// was at some instant in [s - U, s], truncated to its quantum q, and the counter
// only grows, by at most max_watts. So a reading at or before t is a floor; one
// after t is a ceiling once it is allowed its quantum and the power of the time
// it may lag; and each reading caps how far the counter can be from it.
struct Range {
    double lo = 0;
    double hi = 0;
};

Range at(std::span<const TimedValue> r, std::int64_t t, const CounterLimits& l) {
    const auto after = std::ranges::lower_bound(r, t, {}, &TimedValue::t_ns);
    const double lag_j = l.max_watts * static_cast<double>(l.update_ns) * k_ns;
    Range out{-1e300, 1e300};
    if (after != r.begin()) { // a reading at or before t
        const auto& a = *std::prev(after);
        out.lo = std::max(out.lo, a.value);
        out.hi = std::min(out.hi, a.value + l.quantum_j + lag_j +
                                      l.max_watts * static_cast<double>(t - a.t_ns) * k_ns);
    }
    if (after != r.end()) { // a reading at or after t
        const auto& b = *after;
        out.hi = std::min(out.hi, b.value + l.quantum_j + lag_j);
        out.lo = std::max(out.lo, b.value - l.max_watts * static_cast<double>(b.t_ns - t) * k_ns);
    }
    return out;
}

} // namespace

double quantum_of(const Channel& c) noexcept {
    // Through jouleprofd, the source's own backend: its name opens the channel's source.
    std::string_view backend = c.backend;
    if (backend == "jouleprofd") {
        const std::string_view source = c.source;
        backend = source.substr(0, source.find(' '));
    }
    if (backend == "powercap" || backend == "perf_rapl" || backend == "hwmon") {
        return 1.0 / 16384; // RAPL's energy status unit is 2^-14 J or finer (61 µJ)
    }
    if (backend == "pm_counters" || backend == "slurm" || backend == "ipmi") {
        return 1.0; // whole joules
    }
    if (backend == "redfish") { // EnergykWh to three decimals is 3.6 kJ a step
        return c.source.find("kWh") != std::string::npos ? 3.6e3 : 1.0;
    }
    return 1e-3; // NVML, ROCm SMI and the rest: a millijoule
}

CounterLimits limits_of(const Channel& c,
                        const Timing& t,
                        std::span<const TimedValue> readings,
                        std::optional<double> seen_peak_w) noexcept {
    CounterLimits l{quantum_of(c), plausible_max_watts(c), c.update_ns.value_or(0), false};
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
        longest = std::max(longest, readings[i].t_ns - readings[i - 1].t_ns);
    }
    if (t.update_learned || l.update_ns <= 0) {
        l.update_ns = std::max(l.update_ns, longest);
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
    const auto start = at(readings, t0, limits);
    const auto end = at(readings, t1, limits);
    Bound b{std::max(0.0, end.lo - start.hi), end.hi - start.lo, {}, limits.max_assumed};
    // The terms, as they enter the width: each edge's quantum and lag; the rest
    // is the distance of the edges from the readings that bracket them.
    const double quantum = 2 * limits.quantum_j;
    const double lag = 2 * limits.max_watts * static_cast<double>(limits.update_ns) * k_ns;
    const double gap = std::max(0.0, (b.high - b.low) - quantum - lag);
    b.dominant = quantum >= lag && quantum >= gap ? "quantum"
                 : lag >= gap                     ? "edge staleness"
                                                  : "gap between readings";
    return b;
}

} // namespace jp::report
