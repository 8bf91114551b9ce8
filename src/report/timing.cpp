// SPDX-License-Identifier: BSD-3-Clause
#include "report/timing.hpp"

#include "core/duration.hpp"
#include "trace/types.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace jp::report {
namespace {

std::int64_t median(std::vector<std::int64_t> v) { // by value: nth_element reorders
    if (v.empty()) {
        return 0;
    }
    std::ranges::nth_element(v, v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2));
    return v[v.size() / 2];
}

// Readings that repeat the previous value: when at least this share of them do,
// the source updates more slowly than it was read and its period can be learned.
constexpr double k_repeat_share = 0.1;

// A mean-since-previous series as the step it stands for: each reading holds
// over the interval before it; the first covers time before the run, so it goes.
std::vector<TimedValue> held_back(const std::vector<TimedValue>& p) {
    std::vector<TimedValue> out;
    out.reserve(2 * p.size());
    for (std::size_t i = 1; i < p.size(); ++i) {
        out.push_back({p[i - 1].t_ns, p[i].value});
        out.push_back(p[i]);
    }
    return out;
}

// The readings taken on the sampler's own schedule: without the edge and phase
// reads (flagged as edges) and the estimates of a jump, unless fewer than two
// would be left.
std::vector<TimedValue> regular_readings(std::span<const TimedValue> readings,
                                         std::span<const std::uint8_t> flags) {
    std::vector<TimedValue> out;
    if (flags.size() == readings.size()) {
        for (std::size_t i = 0; i < readings.size(); ++i) {
            if ((flags[i] & (trace::k_flag_edge | trace::k_flag_jump)) == 0) {
                out.push_back(readings[i]);
            }
        }
    }
    if (out.size() < 2) {
        out.assign(readings.begin(), readings.end());
    }
    return out;
}

} // namespace

Timing timing_of(const Channel& c,
                 std::span<const TimedValue> readings,
                 std::span<const std::uint8_t> flags) {
    Timing t;
    if (readings.size() < 2) {
        return t;
    }
    const auto p = regular_readings(readings, flags);
    std::vector<std::int64_t> steps;
    for (std::size_t i = 1; i < p.size(); ++i) {
        steps.push_back(p[i].t_ns - p[i - 1].t_ns);
    }
    t.sample_ns = median(steps);
    // A repeat is evidence of a source slower than the readings only where they
    // were a reading's spacing apart: two reads 0.4 ms apart repeat a 1 ms counter.
    std::vector<std::int64_t> changes; // time between successive value changes
    std::size_t repeats = 0;
    std::int64_t last_change = -1;
    for (std::size_t i = 1; i < p.size(); ++i) {
        if (p[i].value == p[i - 1].value) {
            repeats += 2 * steps[i - 1] >= t.sample_ns ? 1U : 0U;
            continue;
        }
        if (last_change >= 0) {
            changes.push_back(p[i].t_ns - last_change);
        }
        last_change = p[i].t_ns;
    }
    const bool repeating =
        static_cast<double>(repeats) >= k_repeat_share * static_cast<double>(p.size() - 1);
    if (repeating && changes.size() >= 2 && c.quantity != Quantity::utilization) {
        t.update_ns = median(std::move(changes));
        t.update_learned = true;
    } else if (c.update_ns) {
        t.update_ns = *c.update_ns;
    }
    // An anchored counter's readings between anchors come from its power field: its power
    // is known as finely as a power reading's, not at a counter's k_span_factor updates.
    t.resolution_ns = resolution_for(shaped_by_profile(flags) ? Quantity::power : c.quantity,
                                     t.sample_ns, t.update_ns);
    if (c.averaging_ns && *c.averaging_ns > t.resolution_ns) {
        t.resolution_ns = *c.averaging_ns; // each reading is already a mean over this window
    }
    return t;
}

bool shaped_by_profile(std::span<const std::uint8_t> flags) noexcept {
    return std::ranges::any_of(flags,
                               [](std::uint8_t f) { return (f & trace::k_flag_profiled) != 0; });
}

std::int64_t resolution_for(Quantity q, std::int64_t sample_ns, std::int64_t update_ns) noexcept {
    // A power reading is itself an average or an instant: repeats only hold it.
    // A counter's value is up to one update (or one reading) old: over a span
    // k_span_factor times that, the error stays within 10 %.
    const auto uncertainty = update_ns > 0 ? std::min(sample_ns, update_ns) : 0;
    auto r = std::max(sample_ns, update_ns);
    if (q == Quantity::energy) {
        constexpr auto k_most = std::numeric_limits<std::int64_t>::max() / k_span_factor;
        r = std::max(r, uncertainty > k_most ? std::numeric_limits<std::int64_t>::max()
                                             : k_span_factor * uncertainty);
    }
    return r;
}

std::vector<TimedValue>
knots_of(const Channel& c, std::vector<TimedValue> readings, std::span<const std::uint8_t> flags) {
    auto& p = readings;
    if (c.mean_since_previous && p.size() >= 2) {
        return held_back(p);
    }
    if (c.quantity != Quantity::energy || p.size() < 3) {
        return readings; // moved, as a parameter
    }
    const bool flagged = flags.size() == p.size();
    std::vector<TimedValue> out;
    out.reserve(p.size());
    out.push_back(p.front());
    for (std::size_t i = 1; i + 1 < p.size(); ++i) {
        if (flagged && (flags[i] & trace::k_flag_jump) != 0) {
            continue; // an estimate, not the counter
        }
        if (p[i].value != out.back().value) {
            out.push_back(p[i]);
        }
    }
    out.push_back(p.back());
    return out;
}

namespace {

// A period as people say it: two significant digits ("50 ms", not "50.0443 ms").
std::string about(std::int64_t ns) {
    if (ns <= 0) {
        return format_duration(Nanos{ns});
    }
    const double mag = std::pow(10.0, std::floor(std::log10(static_cast<double>(ns))) - 1);
    return format_duration(Nanos{
        static_cast<std::int64_t>(std::llround(std::round(static_cast<double>(ns) / mag) * mag))});
}

} // namespace

std::string timing_note(const Channel& c, const Timing& t) {
    // A source that averages is said always: its peaks are the window's means.
    if (t.sample_ns > 0 && c.averaging_ns && *c.averaging_ns >= t.resolution_ns) {
        return fmt::format("{}: read every {}; {} reports {} averages ({}), so its power profile "
                           "is no finer than {} (energy over a run is not affected beyond its "
                           "edges)",
                           c.name, about(t.sample_ns),
                           c.backend == "ipmi" ? std::string{"the BMC"} : c.backend,
                           about(*c.averaging_ns), c.source, about(t.resolution_ns));
    }
    // Said where the sampling is clearly finer than the source (a 50 ms estimate read
    // every 50 ms, its period measured as 50.04 ms, is nothing to say).
    // (in doubles: a crafted trace's periods of 2^61 ns would overflow)
    if (t.sample_ns <= 0 ||
        2 * static_cast<double>(t.resolution_ns) <= 3 * static_cast<double>(t.sample_ns)) {
        return {};
    }
    const auto source = t.update_learned ? std::string{"learned from its readings"}
                                         : fmt::format("{}'s own update period", c.backend);
    return fmt::format("{}: read every {}; its value changes every ~{} ({}), so its power is "
                       "derived over spans of {} or more, within 10 % (a finer interval gives no "
                       "finer power)",
                       c.name, about(t.sample_ns), about(t.update_ns), source,
                       about(t.resolution_ns));
}

} // namespace jp::report
