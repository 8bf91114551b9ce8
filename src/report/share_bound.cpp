// SPDX-License-Identifier: BSD-3-Clause
#include "report/share_bound.hpp"

#include "core/integrate.hpp"
#include "report/source_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace jp::report {
namespace {

// The slope of the job's share of an interval against the interval's energy E
// (attrib::split): what the job used below zero (a rest of the node that came out
// negative) and above idle energy, what it was given between them.
double slope_at(const attrib::Interval& in) {
    const double given = std::clamp(in.given, 0.0, 1.0);
    const double idle_j = std::max(0.0, in.idle_w * in.seconds);
    return in.energy_j > 0 && in.energy_j < idle_j ? given
           : in.used                               ? std::clamp(in.use, 0.0, 1.0)
                                                   : given;
}

// How far below and above the line through the interval's share with that slope its
// share can be when its true energy is anywhere in [lo, hi]: the difference is piecewise
// linear, so its extremes are at an end of the range or at a knee (0, idle energy).
std::pair<double, double>
off_slope(const attrib::Interval& in, double slope, double lo, double hi) {
    const double share = attrib::split(in).job_j();
    double below = 0;
    double above = 0;
    for (const double e : {lo, hi, 0.0, std::max(0.0, in.idle_w * in.seconds)}) {
        if (e < lo || e > hi) {
            continue;
        }
        auto at = in;
        at.energy_j = e;
        const double off = attrib::split(at).job_j() - share - slope * (e - in.energy_j);
        below = std::min(below, off);
        above = std::max(above, off);
    }
    return {below, above};
}

// An interval's lowest energy within its cuts' ranges: never below zero where both ends
// are a counter's own values.
double lowest_energy(const attrib::Interval& in, const CutError& a, const CutError& b) {
    const double lo = in.energy_j + b.lo - a.hi;
    return a.grows && b.grows ? std::max(lo, 0.0) : lo;
}

// The bound with every interval's use as given.
Bound bound_known(std::span<const attrib::Interval> intervals, std::span<const CutError> cuts) {
    double job = 0;
    std::vector<double> slope;
    slope.reserve(intervals.size());
    for (const auto& in : intervals) {
        job += attrib::split(in).job_j();
        slope.push_back(slope_at(in));
    }
    Bound out{job, job, "quantum", {}, {}};
    if (cuts.size() != intervals.size() + 1) {
        return out; // not consecutive intervals: nothing to bound them by (a caller's error)
    }
    // Σ_k s_k (e_{k+1} − e_k) = Σ_j e_j (s_{j−1} − s_j): each cut's error counts by how
    // much the slope changes there, the window's edges by the slope itself.
    BoundTerms terms;
    double up = 0;
    double down = 0;
    const auto flags = [&](const CutError& c) { out.assumed |= c.assumed; };
    for (std::size_t j = 0; j < cuts.size(); ++j) {
        const double d = (j > 0 ? slope[j - 1] : 0.0) - (j < slope.size() ? slope[j] : 0.0);
        if (d == 0) {
            continue;
        }
        const auto& c = cuts[j];
        up += std::max(d * c.lo, d * c.hi);
        down += std::min(d * c.lo, d * c.hi);
        const double weight = std::abs(d);
        terms.quantum += weight * c.quantum;
        terms.lag += weight * c.lag;
        terms.read += weight * c.read;
        terms.gap += std::max(0.0, weight * ((c.hi - c.lo) - c.quantum - c.lag - c.read));
        flags(c);
    }
    // Where an error could carry an interval's energy past a knee of the split: the
    // interval's true energy is its figure plus the error at its end less that at its
    // start, and never below zero where both ends are a counter's own values.
    for (std::size_t k = 0; k < intervals.size(); ++k) {
        const auto& a = cuts[k];
        const auto& b = cuts[k + 1];
        const double lo = lowest_energy(intervals[k], a, b);
        const double hi = intervals[k].energy_j + b.hi - a.lo;
        const auto [below, above] = off_slope(intervals[k], slope[k], lo, hi);
        if (above - below > 0) {
            up += above;
            down += below;
            terms.knee += above - below;
            flags(a);
            flags(b);
        }
    }
    out.low = job + down;
    out.high = job + up;
    // A counter's share is never below nothing, nor above all the counter can have drawn.
    if (std::ranges::all_of(cuts, &CutError::grows)) {
        double energy = 0;
        for (const auto& in : intervals) {
            energy += in.energy_j;
        }
        out.low = std::max(out.low, 0.0);
        out.high = std::min(out.high, energy + cuts.back().hi - cuts.front().lo);
    }
    out.terms = terms;
    out.dominant = dominant_of(terms);
    return out;
}

} // namespace

Bound share_bound(std::span<const attrib::Interval> intervals, std::span<const CutError> cuts) {
    const auto unknown = [](const attrib::Interval& in) { return in.used && in.use_unknown; };
    if (cuts.size() != intervals.size() + 1 || std::ranges::none_of(intervals, unknown)) {
        return bound_known(intervals, cuts);
    }
    // Where nobody knows the job's use (a GPU others had too), the truth is anywhere from
    // none to all of the power above idle. With an energy that cannot go below zero, the
    // share only grows with the use, so its ends are the bounds with none (the low end) and
    // all (the high end) in those intervals; where the energy could go below zero the power
    // above idle could be negative, and its most negative is added on both sides.
    Bound out = bound_known(intervals, cuts);
    std::vector<attrib::Interval> none(intervals.begin(), intervals.end());
    std::vector<attrib::Interval> all = none;
    double negative = 0;
    for (std::size_t k = 0; k < intervals.size(); ++k) {
        if (!unknown(intervals[k])) {
            continue;
        }
        none[k].use = 0;
        all[k].use = 1;
        auto lowest = intervals[k];
        lowest.energy_j = lowest_energy(intervals[k], cuts[k], cuts[k + 1]);
        lowest.use = 1;
        negative += std::max(-attrib::split(lowest).job_dynamic_j, 0.0);
    }
    const auto low = bound_known(none, cuts);
    const auto high = bound_known(all, cuts);
    const double width = out.high - out.low;
    out.low = std::min(out.low, low.low) - negative;
    out.high = std::max(out.high, high.high) + negative;
    if (std::ranges::all_of(cuts, &CutError::grows)) {
        out.low = std::max(out.low, 0.0);
    }
    out.assumed |= low.assumed | high.assumed;
    out.terms.shared = std::max(0.0, (out.high - out.low) - width);
    out.dominant = dominant_of(out.terms);
    return out;
}

std::optional<Bound> interval_share_bound(std::span<const Bound> energies,
                                          std::span<const attrib::Interval> intervals) {
    if (energies.size() != intervals.size()) {
        return std::nullopt;
    }
    Bound out{0, 0, "quantum", {}, {}};
    for (std::size_t k = 0; k < intervals.size(); ++k) {
        const auto& e = energies[k];
        auto lo = intervals[k];
        auto hi = intervals[k];
        lo.energy_j = e.low;
        hi.energy_j = e.high;
        const double by_energy = attrib::split(hi).job_j() - attrib::split(lo).job_j();
        double low = attrib::split(lo).job_j();
        double high = attrib::split(hi).job_j();
        if (intervals[k].used && intervals[k].use_unknown) {
            // The share is linear in the use at a given energy: its ends are at no use and at
            // all of it (which is the lower one where the energy is negative).
            for (const double use : {0.0, 1.0}) {
                lo.use = use;
                hi.use = use;
                low = std::min(low, attrib::split(lo).job_j());
                high = std::max(high, attrib::split(hi).job_j());
            }
        }
        out.low += low;
        out.high += high;
        // The energy's terms, as much of them as the share moves by; the rest is the use.
        const double width = e.high - e.low;
        if (width > 0) {
            out.terms += e.terms.scaled(std::max(0.0, by_energy) / width);
        }
        out.terms.shared += std::max(0.0, (high - low) - std::max(0.0, by_energy));
        out.assumed |= e.assumed;
    }
    out.dominant = dominant_of(out.terms);
    return out;
}

std::optional<Bound> field_share_bound(const RunData& data,
                                       const Source& field,
                                       std::span<const std::int64_t> cuts,
                                       std::span<const attrib::Interval> intervals) {
    if (cuts.size() != intervals.size() + 1) {
        return std::nullopt;
    }
    std::vector<Bound> energies;
    energies.reserve(intervals.size());
    for (std::size_t k = 0; k < intervals.size(); ++k) {
        const auto e = bound_over(data, field, cuts[k], cuts[k + 1]);
        if (!e) {
            return std::nullopt;
        }
        energies.push_back(*e);
    }
    return interval_share_bound(energies, intervals);
}

std::optional<Bound> rest_share_bound(const RunData& data,
                                      const Source& node,
                                      std::span<const std::optional<Source>> parts,
                                      std::span<const std::int64_t> cuts,
                                      std::span<const attrib::Interval> intervals) {
    if (cuts.size() != intervals.size() + 1 ||
        !std::ranges::all_of(parts, [](const auto& p) { return p.has_value(); })) {
        return std::nullopt;
    }
    std::vector<Bound> energies;
    energies.reserve(intervals.size());
    for (std::size_t k = 0; k < intervals.size(); ++k) {
        const auto a = cuts[k];
        const auto b = cuts[k + 1];
        auto rest = bound_over(data, node, a, b);
        for (std::size_t p = 0; rest && p < parts.size(); ++p) {
            const auto part = bound_over(data, *parts[p], a, b);
            if (!part) {
                return std::nullopt;
            }
            rest->low -= part->high; // the node less the parts, the ends crossed
            rest->high -= part->low;
            rest->terms += part->terms;
            rest->assumed |= part->assumed;
        }
        if (!rest) {
            return std::nullopt;
        }
        energies.push_back(*rest);
    }
    return interval_share_bound(energies, intervals);
}

std::vector<std::int64_t> snap_to_readings(std::span<const std::int64_t> cuts,
                                           std::span<const TimedValue> readings) {
    if (readings.empty() || cuts.size() <= 2) {
        return {cuts.begin(), cuts.end()};
    }
    const auto first = cuts.front();
    const auto last = cuts.back();
    std::vector<std::int64_t> out{first};
    for (std::size_t k = 1; k + 1 < cuts.size(); ++k) {
        const auto t = cuts[k];
        const auto after = std::ranges::lower_bound(readings, t, {}, &TimedValue::t_ns);
        std::int64_t best = t;
        std::int64_t distance = std::numeric_limits<std::int64_t>::max();
        for (auto it : {after, after == readings.begin() ? after : std::prev(after)}) {
            if (it != readings.end() && std::abs(it->t_ns - t) < distance) {
                best = it->t_ns;
                distance = std::abs(it->t_ns - t);
            }
        }
        if (best > out.back() && best < last) {
            out.push_back(best);
        }
    }
    out.push_back(last);
    return out;
}

CutErrors::CutErrors(const RunData& data,
                     std::span<const std::optional<Source>> parts,
                     const std::optional<Source>& node)
    : m_data(&data), m_sources(parts.begin(), parts.end()), m_rest(data.node_channel.has_value()) {
    if (m_rest) {
        m_sources.push_back(node);
    }
}

std::optional<CutError> CutErrors::channel_at(std::size_t k, std::int64_t t) const {
    const auto& s = m_sources[k];
    if (!s || !s->counter) {
        return std::nullopt;
    }
    const auto& limits = *s->counter;
    const auto& series = m_data->series[s->channel];
    const double value = interpolate(series, t);
    const auto r = counter_range(series, t, limits);
    const bool edge = t == m_data->t0 || t == m_data->t1; // an anchored counter's own reads
    const auto watts_over = [&](std::int64_t ns) {
        return limits.max_watts * static_cast<double>(ns) * 1e-9;
    };
    return CutError{r.lo - value,
                    r.hi - value,
                    limits.quantum_j,
                    watts_over(limits.update_ns),
                    {.peak = limits.max_assumed, .profile = m_data->profiled[s->channel] && !edge},
                    true,
                    watts_over(2 * limits.half_read_ns())};
}

std::optional<CutError> CutErrors::at(std::size_t n, std::int64_t t) const {
    if (m_data == nullptr) {
        return std::nullopt;
    }
    const std::size_t parts = m_sources.size() - (m_rest ? 1 : 0);
    if (n < parts) {
        return channel_at(n, t);
    }
    if (!m_rest || n != parts) {
        return std::nullopt;
    }
    auto rest = channel_at(parts, t); // the node less every part: the ends crossed
    for (std::size_t k = 0; rest && k < parts; ++k) {
        const auto p = channel_at(k, t);
        if (!p) {
            return std::nullopt;
        }
        rest->grows = false; // a node less its parts can go either way
        rest->lo -= p->hi;
        rest->hi -= p->lo;
        rest->quantum += p->quantum;
        rest->lag += p->lag;
        rest->read += p->read;
        rest->assumed |= p->assumed;
    }
    return rest;
}

} // namespace jp::report
