// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A channel's energy over one interval split between the job and the rest of the
// node (docs/attribution.md): the idle part by what the job was given, the
// dynamic part by what it used. What the job was not given is "unallocated";
// what others used is "other processes". The four always add up to the energy.
namespace jp::attrib {

struct Share {
    double job_idle_j = 0;    // the idle power of what the job was given
    double job_dynamic_j = 0; // the power above idle, by the job's use
    double unallocated_j = 0; // idle power of what the job was not given (and dynamic
                              // power in an interval nobody used the channel)
    double other_j = 0;       // the power above idle that other processes used
    [[nodiscard]] double job_j() const noexcept { return job_idle_j + job_dynamic_j; }
    [[nodiscard]] double node_j() const noexcept {
        return job_idle_j + job_dynamic_j + unallocated_j + other_j;
    }
    Share& operator+=(const Share& o) noexcept {
        job_idle_j += o.job_idle_j;
        job_dynamic_j += o.job_dynamic_j;
        unallocated_j += o.unallocated_j;
        other_j += o.other_j;
        return *this;
    }
};

// One channel over one interval.
struct Interval {
    double energy_j = 0; // what the channel drew
    double seconds = 0;
    double idle_w = 0; // its idle power (0: not known; everything is then dynamic)
    double given = 0;  // the fraction of it the job was given, 0..1
    // The fraction of its use that was the job's, 0..1, when anyone used it (used);
    // when nobody did, its dynamic part goes by what was given, like idle power.
    double use = 0;
    bool used = false;
    // Nobody can say how much of it the job used (a GPU others had too, attrib/gpu_use.hpp):
    // `use` is an estimate, and the truth anywhere from 0 to 1 (report/share_bound.hpp).
    bool use_unknown = false;
};

// Splits an interval's energy. Idle energy is at most what was drawn (an idle
// power above the measured one is the model's error, not negative dynamic energy).
[[nodiscard]] Share split(const Interval& in) noexcept;

} // namespace jp::attrib
