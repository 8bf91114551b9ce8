// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The shape of a GPU's power between two reads of its energy counter, from the power fields
// read in between (report/anchored.hpp scales it to the counter). Two fields, two faults,
// measured on a real H100 and H200 (docs/gpu-check.md):
//  - the 1 s mean (nvmlDeviceGetPowerUsage) sees all the energy but smears each change over
//    its second: a load switched on for 1 s came out 14 % low, the idle second after it
//    40 % high (the third check);
//  - the instant field follows a change within its 100 ms update but sees only 25-35 ms of
//    each 100 ms: a pulse train beating against it put whole seconds 50-150 % off.
// Together, each where it is right: the level from the mean, the detail from the instant
// field with its own mean over the same window taken out,
//     P(t) = L(t) + I(t) - Ī(t),
// so a change shows as sharply as the instant field sees it while each second's energy
// stays near the mean's. On the real H200 run the phases of 1-6 s came within 0.8 % of the
// driver's counter (the mean alone: 14 % low); on steady loads switching every few ms, the
// instant field's part-time noise costs some seconds a few points more than the mean alone
// (tests/unit/report/field_shape_test.cpp, docs/gpu-check.md "Third check").
#include "core/integrate.hpp"
#include "report/anchored.hpp"
#include "trace/reader.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace jp::report {

// The readings' value at t: linear between the two around it, held outside them. Sorted by
// time, at least one.
[[nodiscard]] double interpolated_at(std::span<const TimedValue> readings, std::int64_t t);

// The trapezoid integral of power readings in joules from the first reading to t, held at
// the first and last readings' power outside them. `readings` must outlive it.
class FieldIntegral {
public:
    explicit FieldIntegral(std::span<const TimedValue> readings);
    [[nodiscard]] double at_index(std::size_t i) const { return m_cum[i]; }
    [[nodiscard]] double operator()(std::int64_t t) const;

private:
    std::span<const TimedValue> m_p;
    std::vector<double> m_cum;
};

// The readings that are power (finite, not below zero, under a megawatt: anything else is a
// driver's or a crafted trace's fault and shapes nothing), each placed `centre_ns` earlier:
// a reading that is a mean over a window stands for the power half a window before it.
[[nodiscard]] std::vector<TimedValue> usable_power(std::span<const TimedValue> readings,
                                                   std::int64_t centre_ns);

// The level with the instant readings' detail where they cover it. The instant readings fall
// into stretches with no gap over `max_gap_ns` (a reading lost, a field that stopped); at
// each reading of a stretch the shape is the level there (interpolated, held outside its
// readings) plus the reading less the stretch's mean over `window_ns` centred on it — the
// window narrowed to fit inside the stretch, so the detail fades to none at its ends —
// never below zero; outside the stretches it is the level's own readings. Both inputs
// already placed (usable_power). `detailed`: how many points carry some detail (0: the
// shape is the level alone).
struct Shape {
    std::vector<TimedValue> points;
    std::size_t detailed = 0;
    std::int64_t detail_from_ns = 0; // the first and last of them (with detailed > 0)
    std::int64_t detail_to_ns = 0;
};
[[nodiscard]] Shape level_and_detail(std::span<const TimedValue> level,
                                     std::span<const TimedValue> instant,
                                     std::int64_t window_ns,
                                     std::int64_t max_gap_ns);

// The shape of counter `counter`'s spans from its profile's readings (`level`) and its
// detail's (`detail`, nullptr: none): level_and_detail() of the two where the detail is an
// instant reading beside a mean and on its scale, the level alone otherwise; readings above
// twice the counter's limit_watts are dropped from both (report/anchored.cpp).
[[nodiscard]] Shape shape_of(const std::vector<Channel>& channels,
                             std::size_t counter,
                             const Profile& profile,
                             const trace::ChannelSamples& level,
                             const trace::ChannelSamples* detail);

} // namespace jp::report
