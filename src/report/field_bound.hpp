// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A bound on the energy of a power field over a window (docs/uncertainty.md, "Power fields").
// A power reading is not a counter: it says what the power was at an instant, or its mean over
// a window, never how much energy passed between two readings. Two kinds, two rules:
//  - averaged (a BMC's DCMI reading, nvmlDeviceGetPowerUsage's 1 s mean: the channel's
//    mean_since_previous): each reading is the mean over its window, so the figure is a sum of
//    readings times spans, and what it cannot see is where the windows do not cover the run
//    exactly once (the edges, gaps, overlaps). With the power between 0 and the most the
//    domain can draw, that is a guarantee: for any weights c_k,
//        E = Σ c_k·m_k + ∫ p·(χ − Σ c_k·φ_k),
//    where m_k is reading k, φ_k its window's weight (1/A over the window) and χ the window
//    asked about; the last term lies between −P·∫(χ−w)⁻ and P·∫(χ−w)⁺. The weights taken
//    are the ones the figure itself uses, so the figure and its bound agree.
//  - instantaneous (hwmon's power1_input, NVML's instant field, a Redfish reading): a value
//    at one instant bounds nothing between readings. The bound assumes the power between two
//    neighbouring readings stayed between their values (said with the figure: a load that
//    changes faster than the readings can break it; docs/uncertainty.md shows one on a real
//    H100); where the readings do not bracket the window, or a gap is over 2.5 reading
//    periods, anything from nothing to the most the domain can draw.
// Both: each reading's quantum, and a reading that lags the power by up to the source's
// update period (the whole series shifted: at most the most it can draw over that period).
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
    std::int64_t update_ns = 0; // the longest a reading can lag the power
    // Averaged readings: the window each covers (0: the time since the reading before).
    std::int64_t window_ns = 0;
    bool averaged = false;
    std::int64_t gap_ns = 0;  // instantaneous: a longer span between readings is a gap
    bool max_assumed = false; // max_watts is twice the highest reading, not the sensor's
};

// A power reading's step by backend (through jouleprofd, the source's): a whole watt for a
// BMC (IPMI, Redfish) and Slurm, a microwatt for hwmon, a milliwatt for NVML, ROCm SMI and
// the rest.
[[nodiscard]] double field_quantum(const Channel& c) noexcept;

// The limits of power channel c read as `knots` (report/timing.hpp: an averaged channel's
// readings held back over the span before each) with timing t; seen_peak_w is its highest
// reading (the most it can draw, where the sensor states none, is twice that).
[[nodiscard]] FieldLimits field_limits(const Channel& c,
                                       const Timing& t,
                                       std::span<const TimedValue> knots,
                                       std::optional<double> seen_peak_w) noexcept;

// The energy over [t0, t1] of a power field read as `knots`, or nullopt without a knot.
// Instantaneous readings' bounds carry field_assumed.
[[nodiscard]] std::optional<Bound> field_bound(std::span<const TimedValue> knots,
                                               std::int64_t t0,
                                               std::int64_t t1,
                                               const FieldLimits& limits);

} // namespace jp::report
