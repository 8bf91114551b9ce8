// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A bound that holds on an energy counter's figure over a window, from the
// counter's own limits (docs/uncertainty.md): its quantum, how often it updates
// (a reading may be up to one update period old), the most power the domain can
// draw, and where the readings lie around the window's edges. Not a standard
// deviation: the true energy is inside [low, high] whatever the power did,
// as long as the counter's limits are as stated.
#include "core/channel.hpp"
#include "core/integrate.hpp"
#include "report/assumptions.hpp"
#include "report/timing.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace jp::report {

struct CounterLimits {
    double quantum_j = 0;       // the counter's step (the value shown is truncated to it)
    double max_watts = 0;       // the most the domain can draw
    std::int64_t update_ns = 0; // the longest a reading can lag the counter
    bool max_assumed = false;   // max_watts is twice the highest power seen, not the sensor's
    // The longest read call (an H100's energy read spins ~4 ms): a value stamped at the
    // middle of its call may be from anywhere in it, up to half a call either side.
    std::int64_t read_ns = 0;

    // How far a value may lie from its stamp on either side: half the call, rounded up
    // (the stamp is the call's middle, rounded down).
    [[nodiscard]] constexpr std::int64_t half_read_ns() const noexcept { return (read_ns + 1) / 2; }
};

// What each term of a bound adds to its width (joules, or watts for a power's bound):
// the counter's quantum at the edges, their staleness (the most the domain can draw over
// an update period), how far the edges lie from the readings around them, and spans
// where the counter's values were estimated over a jump; for a job's share, intervals
// whose energy could cross idle power and a GPU others had too, whose use nobody can split
// (report/share_bound.hpp); for a power field, what its readings leave open between them
// (report/field_bound.hpp); and the time a read call takes, within which its value was
// taken. Their sum is the width before the bound is cut at what is
// physically possible.
struct BoundTerms {
    double quantum = 0;
    double lag = 0;
    double gap = 0;
    double jump = 0;
    double knee = 0;
    double shared = 0;
    double field = 0;
    double wrap = 0;
    double read = 0;
    BoundTerms& operator+=(const BoundTerms& o) noexcept {
        quantum += o.quantum;
        lag += o.lag;
        gap += o.gap;
        jump += o.jump;
        knee += o.knee;
        shared += o.shared;
        field += o.field;
        wrap += o.wrap;
        read += o.read;
        return *this;
    }
    // The width they make together (each term is a part of high - low).
    [[nodiscard]] double total() const noexcept {
        return quantum + lag + gap + jump + knee + shared + field + wrap + read;
    }
    [[nodiscard]] BoundTerms scaled(double k) const noexcept {
        return {quantum * k, lag * k,   gap * k,  jump * k, knee * k,
                shared * k,  field * k, wrap * k, read * k};
    }
};
// The name of the largest term: "quantum", "edge staleness", "gap between readings",
// "counter jump", "idle power crossing", "who used a shared GPU", "power between
// readings", "ambiguous wrap" or "read time".
[[nodiscard]] std::string_view dominant_of(const BoundTerms& terms) noexcept;

// What the figure could be, and which term of the bound is the largest.
struct Bound {
    double low = 0;
    double high = 0;
    // "quantum", "edge staleness", "gap between readings" or "counter jump"
    std::string_view dominant;
    Assumptions assumed{}; // what it holds on beyond the sensors' stated limits
    BoundTerms terms;      // what makes its width
    [[nodiscard]] double half_width() const noexcept { return (high - low) / 2; }
};

// Where the counter can be at t (its cumulative joules) from the readings around t:
// a reading at or before t is a floor, one after it a ceiling once allowed its quantum
// and the power of the time it may lag, and each caps how far the counter got from it.
struct CounterRange {
    double lo = 0;
    double hi = 0;
};
[[nodiscard]] CounterRange counter_range(std::span<const TimedValue> readings,
                                         std::int64_t t,
                                         const CounterLimits& limits) noexcept;

// The bound of a sum: the ends added (worst case: the terms' errors are not
// independent, one power step moves every part at once); none when a term has none.
[[nodiscard]] std::optional<Bound> sum_of(const std::optional<Bound>& a,
                                          const std::optional<Bound>& b);

// The backend behind channel c: through jouleprofd, the source's own (its name opens the
// channel's source).
[[nodiscard]] std::string_view source_backend(const Channel& c) noexcept;

// The counter's step by backend (through jouleprofd, the source's): RAPL's
// coarsest energy status unit (2^-14 J), whole joules for pm_counters, Slurm and
// IPMI, a Redfish BMC's joule or 0.001 kWh (limits_of: the decimals its readings give),
// and a millijoule for NVML, ROCm SMI and what is not known.
[[nodiscard]] double quantum_of(const Channel& c) noexcept;

// The limits of channel c read as `readings` (its knots: the readings where its
// value changed) with timing t. The most it can draw is twice what its sensor
// states (limit or maximum); a sensor that states neither is taken to draw at
// most twice seen_peak_w, the highest power seen at its resolution (an
// assumption, said with the bound), else jouleprof's plausible maximum (5 kW a
// domain, 100 kW a node).
// Gaps between readings across an estimated span (below) are not the source's
// lag and do not count toward it.
struct EstimatedSpan;
[[nodiscard]] CounterLimits limits_of(const Channel& c,
                                      const Timing& t,
                                      std::span<const TimedValue> readings,
                                      std::optional<double> seen_peak_w,
                                      std::span<const EstimatedSpan> estimated = {}) noexcept;

// The energy over [t0, t1] of a counter read as `readings` (sorted by time,
// cumulative joules, at least one), or nullopt with none.
[[nodiscard]] std::optional<Bound> counter_bound(std::span<const TimedValue> readings,
                                                 std::int64_t t0,
                                                 std::int64_t t1,
                                                 const CounterLimits& limits) noexcept;

// Where a counter's values are the sampler's estimates, not the counter's: a
// jump (a glitch, a torn read, a reset) until the counter returned to its series
// or was taken as reset. From the last good reading before it to the first good
// one after (unending, when the run ended first).
struct EstimatedSpan {
    std::int64_t from_ns = 0;
    std::int64_t to_ns = 0;
    // Not a jump: two readings further apart than the counter takes to wrap at the most the
    // domain can draw, so how often it wrapped between them is not known ("ambiguous wrap").
    bool wrap = false;
};

// The spans of readings flagged as jumps (trace::k_flag_jump); flags has one
// entry per reading, or none.
[[nodiscard]] std::vector<EstimatedSpan> estimated_spans(std::span<const TimedValue> readings,
                                                         std::span<const std::uint8_t> flags);

// `spans` (sorted, as estimated_spans gives them) with the spans between two consecutive
// readings of channel c further apart than its counter takes to wrap at the most it can
// draw (its range over plausible_max_watts): the tracker unwrapped once there, and whole
// ranges more may have passed. Overlapping or touching spans are joined. A counter that does
// not wrap (no range stated) adds none.
[[nodiscard]] std::vector<EstimatedSpan> with_ambiguous_wraps(std::vector<EstimatedSpan> spans,
                                                              std::span<const TimedValue> readings,
                                                              const Channel& c);

// The same bound where some spans are estimates: the readings between them
// bound their own pieces, and each estimated span's share of [t0, t1] is
// anywhere from nothing to the most the domain can draw over it ("counter jump").
[[nodiscard]] std::optional<Bound> counter_bound(std::span<const TimedValue> readings,
                                                 std::int64_t t0,
                                                 std::int64_t t1,
                                                 const CounterLimits& limits,
                                                 std::span<const EstimatedSpan> estimated) noexcept;

} // namespace jp::report
