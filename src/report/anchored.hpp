// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A GPU's energy counter read only at anchors (every 10 s and at the job's edges: each read
// costs an H100 ~4 ms of CPU) and its cheap power field read at the sampling interval
// (Channel::profile_of) make one channel's truth: the energy is the counter's, the profile
// between two anchors is the field's, scaled so that its integral over the span equals the
// counter's delta. Scaled, because the field is part-time (it averages ~25-35 % of each
// 100 ms, docs/gpu-check.md): unscaled, a phase's energy would carry the field's error
// (7-15 % low over a pulse train) while the run's total carries none; scaled, phases and
// the profile add up to the counter in every span. The scale of each span is its
// coverage: field integral / counter delta, shown per run ("0.93 × the counter"), for the
// profile and for any other power channel within the counter (the instant field).
#include "core/integrate.hpp"
#include "trace/reader.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace jp::report {

// One span between two successive counter readings.
struct AnchorSpan {
    std::int64_t t0_ns = 0;
    std::int64_t t1_ns = 0;
    double counter_j = 0;  // the counter's delta
    double field_j = 0;    // the field's integral over the span
    bool profiled = false; // readings of the field inside the span shaped it
};

// The counter's readings with, inside each span between two of them, a reading at every
// field reading: E(a) + ΔE · F(t) / F(b), F the field's trapezoid integral from a. A span
// keeps the counter's straight line where the field cannot shape it: no field reading
// inside, a field integral of zero or less, a counter that went back (a reset) or a
// reading that is an estimate (a jump). The readings it adds are flagged
// trace::k_flag_profiled. `spans` (when given) gets every span.
// A field whose readings are means over a window (Channel::averaging_ns: NVML's power
// usage, 1 s) stands for the power half a window before each reading: `centre_ns`.
[[nodiscard]] trace::ChannelSamples anchor_profile(const trace::ChannelSamples& counter,
                                                   const trace::ChannelSamples& field,
                                                   std::vector<AnchorSpan>* spans = nullptr,
                                                   std::int64_t centre_ns = 0);

// The same, from readings already placed (field_shape.hpp: usable_power, level_and_detail).
[[nodiscard]] trace::ChannelSamples anchor_shape(const trace::ChannelSamples& counter,
                                                 const std::vector<TimedValue>& shape,
                                                 std::vector<AnchorSpan>* spans = nullptr);

// What shapes an anchored counter: its profile (`level`, a power channel whose profile_of
// names it), and, where the profile is a mean over a window (averaging_ns), the detail: the
// first other power channel within the counter (parent) that is not a mean (an NVIDIA GPU's
// instant field). Reports shape the counter by level_and_detail() of the two
// (field_shape.hpp says why), by the level alone where there is no detail.
struct Profile {
    std::size_t level = 0;
    std::optional<std::size_t> detail;
};
// Per channel: its Profile, for an energy channel that a power channel's profile_of names
// (the first such, by index), else nullopt. Built once per trace: a crafted one may hold
// thousands of channels.
using ProfileIndex = std::vector<std::optional<Profile>>;
[[nodiscard]] ProfileIndex profile_index(const std::vector<Channel>& channels);

// A channel's readings in a run as every report uses them: an anchored counter's through
// anchor_shape of its Profile (its readings from the field flagged trace::k_flag_profiled, so that
// timing_of() knows its power as finely as the field's), any other channel's as stored.
[[nodiscard]] Result<trace::ChannelSamples> run_readings(trace::Reader& reader,
                                                         std::int64_t run_id,
                                                         std::size_t channel,
                                                         const ProfileIndex& profiles);

// How much of the counter's energy an anchored GPU's field saw over a run.
struct FieldCoverage {
    std::string counter;   // "gpu0"
    std::string field;     // "gpu0.power"
    std::size_t spans = 0; // spans the field shaped
    double ratio = 0;      // Σ field / Σ counter over those spans
    double min_ratio = 0;  // over spans of at least k_coverage_min_j
    double max_ratio = 0;
    bool profile = true; // the counter's profile; false: another reading within it
    std::string detail;  // on the profile: the reading whose detail shapes it with the profile
};
inline constexpr double k_coverage_min_j = 1.0; // a smaller span's ratio is mostly quanta
[[nodiscard]] std::optional<FieldCoverage> coverage_of(const std::string& counter,
                                                       const std::string& field,
                                                       const std::vector<AnchorSpan>& spans,
                                                       bool profile = true);
// Every anchored counter's coverage in a run: its profile's, then any other power
// channel's within it.
[[nodiscard]] Result<std::vector<FieldCoverage>> field_coverage(trace::Reader& reader,
                                                                std::int64_t run_id);
// "gpu0: its power field's integral = 0.93 × its energy counter over 6 spans between
// anchors (0.90-0.96); the profile is scaled to the counter in each span".
[[nodiscard]] std::string coverage_note(const FieldCoverage& c);

} // namespace jp::report
