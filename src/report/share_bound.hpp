// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The bound the sensors put on the job's share of a figure (docs/attribution.md,
// docs/uncertainty.md). The split (attrib::split) cuts a channel's energy at every
// reading of the CPU time; at each cut the counter's true value lies in a range
// around the value the figure interpolates there (report/bound.hpp). The job's
// share moves with those errors through the split's slope in each interval (what
// the job was given below idle power, what it used above it), so it is bounded by
// taking each cut's error at the end of its range that moves the share furthest:
// a guarantee over every error within the ranges, not a standard deviation. Where
// the job's fraction is steady between cuts, their errors cancel and only the
// window's two edges count; where it changes, each cut counts by how much.
#include "attrib/share.hpp"
#include "report/bound.hpp"
#include "report/source_bound.hpp"
#include "report/window.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace jp::report {

// Where a counter's true cumulative value can be at one cut, against the value
// the figure interpolates there: [lo, hi] joules, and what the width is made of.
struct CutError {
    double lo = 0;
    double hi = 0;
    double quantum = 0; // the counter's step
    double lag = 0;     // the most it can draw over its update period
    // The most it can draw is twice its highest power seen (peak); the value there follows
    // an anchored counter's profile (profile).
    Assumptions assumed{};
    bool grows = true; // a counter's own value: it never goes down from one cut to the next
    double read = 0;   // the most it can draw over its longest read call
};

// The job's share of consecutive intervals (interval k from cut k to cut k+1, so
// one more cut than intervals), split as attrib::split does, whatever the true
// values at the cuts within their ranges. Its dominant term is the cuts' largest.
[[nodiscard]] Bound share_bound(std::span<const attrib::Interval> intervals,
                                std::span<const CutError> cuts);

// The job's share of intervals whose energies each lie within a bound (energies[k] for
// intervals[k]), each interval's independently: the share only grows with the energy, so it
// lies between the shares at the lower ends and at the upper ends; where nobody knows the
// job's use (a GPU others had too), at no use or all of it, whichever is further (the share
// is linear in the use; at a negative energy all of it is the lower end).
// Nullopt where there are not as many bounds as intervals.
[[nodiscard]] std::optional<Bound>
interval_share_bound(std::span<const Bound> energies, std::span<const attrib::Interval> intervals);

// The job's share of a measured power field's intervals (cut at `cuts`, one more than
// intervals; a GPU's power reading): a field has no range at an instant, so each interval's
// energy is anywhere within the field's bound over it (report/field_bound.hpp). `field` is
// the channel with its limits (report/source_bound.hpp: found once a run, not once a
// window). Nullopt where an interval has no bound.
[[nodiscard]] std::optional<Bound> field_share_bound(const RunData& data,
                                                     const Source& field,
                                                     std::span<const std::int64_t> cuts,
                                                     std::span<const attrib::Interval> intervals);

// The same for the rest of the node (`node` less `parts`) where one of them is a power field
// (a BMC's node reading beside RAPL counters): each interval's rest within the node's bound
// less the parts', the ends crossed. Nullopt where one of them has no bound (a part without
// a source).
[[nodiscard]] std::optional<Bound> rest_share_bound(const RunData& data,
                                                    const Source& node,
                                                    std::span<const std::optional<Source>> parts,
                                                    std::span<const std::int64_t> cuts,
                                                    std::span<const attrib::Interval> intervals);

// The cuts moved to the nearest reading: the first and last cut (a window's edges)
// stay, each other moves to the reading nearest it strictly between them (one cut a
// reading at most), and readings an empty span does not have leave the cuts as they are.
[[nodiscard]] std::vector<std::int64_t> snap_to_readings(std::span<const std::int64_t> cuts,
                                                         std::span<const TimedValue> readings);

// The cut errors of the channels a split uses: the counted parts, then the node
// meter less them (the rest) where there is one. A part whose source is not an energy
// counter (none: no reading, a model, estimated over a jump; a power field) has none, nor
// has the rest unless the node and every part have them.
class CutErrors {
public:
    CutErrors() = default;
    // The parts' sources (source_of) and the node meter's, found once a run.
    CutErrors(const RunData& data,
              std::span<const std::optional<Source>> parts,
              const std::optional<Source>& node);
    // Part n's (n == parts.size(): the rest's) error at t, if it has one.
    [[nodiscard]] std::optional<CutError> at(std::size_t n, std::int64_t t) const;

private:
    [[nodiscard]] std::optional<CutError> channel_at(std::size_t k, std::int64_t t) const;
    const RunData* m_data = nullptr;
    std::vector<std::optional<Source>> m_sources; // the parts, then the node for the rest
    bool m_rest = false;
};

} // namespace jp::report
