// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A bound on the energy of a power field over a window (docs/uncertainty.md, "Power fields").
// A power reading is not a counter: it says what the power was at an instant, or its mean over
// a window, never how much energy passed between two readings. Each reading may lag the power
// by up to the source's update period U, each by its own amount (a source polled without
// phase lock). Two kinds, two rules:
//  - averaged (a BMC's DCMI reading, nvmlDeviceGetPowerUsage's 1 s mean: the channel's
//    mean_since_previous): reading k is the mean over a window [y_k − A, y_k], y_k within U
//    before it was read. For any weights c_k,
//        E = Σ c_k·m_k + ∫ p·(χ − Σ c_k·φ_k),
//    φ_k the window's weight (1/A over it), χ the window asked about; with the power between
//    0 and P, the last term lies between −P·∫(w_max − χ)⁺ and P·∫(χ − w_min)⁺, where w_min
//    counts each window only where it lies whatever its lag and w_max wherever it may lie. The
//    weights are the figure's own, so figure and bound agree. That is a guarantee. Where it is
//    wider than the figure (a window read about as often as it updates may be read twice and
//    the next never), the bound taken instead assumes the readings lag alike (each window
//    follows the one before), and says so (assumed.windows).
//  - instantaneous (hwmon's power1_input, NVML's instant field, a Redfish reading): each
//    reading shows the power at an instant up to U before it, the instants in the readings'
//    order (a later read never shows an older sample). The bound assumes the power between
//    two neighbouring readings' instants stayed between their values, and says so
//    (assumed.field): at t the power lies within the readings from the
//    last at or before t to the first more than U after it. Before the first reading, within
//    U of the last, and across a gap of over 2.5 reading periods: anything from 0 to P.
// Both: each reading's quantum; the bound is cut at 0 and P·T; a negative reading gives none.
// A reading stamped at its call's middle may show the power (or end its window) up to half a
// call after its stamp, and up to U plus half a call before it: the bound is taken over the
// stamps moved half a call later with U widened by a call, and what that adds is the "read
// time" term.
#include "core/channel.hpp"
#include "core/integrate.hpp"
#include "report/bound.hpp"
#include "report/timing.hpp"

#include <cstdint>
#include <optional>
#include <span>

namespace jp::report {

struct FieldLimits {
    double quantum_w = 0;       // a reading's step (watts)
    double max_watts = 0;       // the most the domain can draw
    std::int64_t update_ns = 0; // the longest a reading can lag the power (each its own)
    // Averaged readings: the window each covers (0: the time since the reading before).
    std::int64_t window_ns = 0;
    bool averaged = false;
    std::int64_t gap_ns = 0;  // instantaneous: a longer span between readings is a gap
    bool max_assumed = false; // max_watts is twice the highest reading, not the sensor's
    // The longest read call, where each reading is stamped at its call's middle (0: stamped
    // by the source): the value may come from anywhere in the call, half a call either side.
    std::int64_t read_ns = 0;
    bool negative = false; // a reading below zero in the series: no bound (none is power)
};

// A power reading's step by backend (through jouleprofd, the source's): a whole watt for a
// BMC (IPMI, Redfish) and Slurm, a microwatt for hwmon, a milliwatt for NVML, ROCm SMI and
// the rest.
[[nodiscard]] double field_quantum(const Channel& c) noexcept;

// The limits of power channel c read as `knots` (report/timing.hpp: an averaged channel's
// readings held back over the span before each) with timing t; seen_peak_w is its highest
// reading (the most it can draw, where the sensor states none, is twice that; never below
// it). The lag: the backend's update period, else learned from repeats, else the readings'
// median spacing (a value new at every reading); the gap: 2.5 median spacings.
[[nodiscard]] FieldLimits field_limits(const Channel& c,
                                       const Timing& t,
                                       std::span<const TimedValue> knots,
                                       std::optional<double> seen_peak_w) noexcept;

// The energy over [t0, t1] of a power field read as `knots`, or nullopt without a knot or
// with a negative one (near the window, or anywhere where limits.negative says so). Only
// the readings near the window are looked at: a bound per window over a day stays linear.
[[nodiscard]] std::optional<Bound> field_bound(std::span<const TimedValue> knots,
                                               std::int64_t t0,
                                               std::int64_t t1,
                                               const FieldLimits& limits);

} // namespace jp::report
