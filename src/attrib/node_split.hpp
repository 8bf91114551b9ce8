// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A channel's energy over one interval split among every job on the node at once
// (jouleprofd's accounts, docs/attribution.md "Every job at once"): the same rule as
// attrib/share.hpp's for one job, with the shares of all of them held to what there is. The
// idle part by what each job was given, the dynamic part by what each used; what no job
// was given is unallocated, what no job used is other processes'. The parts add up to the
// energy drawn, whatever the inputs: shares given (or used) that add up to more than the
// whole are scaled down to it, and the result says so.
#include <span>
#include <vector>

namespace jp::attrib {

// One job's claim on the channel in the interval.
struct JobClaim {
    double given = 0; // its share of the channel's idle power, 0..1 (divided among holders)
    double use = 0;   // its share of the channel's use, 0..1 (when anyone used it)
};

// One channel over one interval.
struct NodeInterval {
    double energy_j = 0;
    double seconds = 0;
    double idle_w = 0; // 0: not known; everything is then dynamic
    // Whether anyone used it: when nobody did, its dynamic part goes by what was given,
    // like idle power, and the rest of it is unallocated.
    bool used = false;
};

struct JobEnergy {
    double idle_j = 0;
    double dynamic_j = 0;
    [[nodiscard]] double total_j() const noexcept { return idle_j + dynamic_j; }
    JobEnergy& operator+=(const JobEnergy& o) noexcept {
        idle_j += o.idle_j;
        dynamic_j += o.dynamic_j;
        return *this;
    }
};

struct NodeSplit {
    std::vector<JobEnergy> jobs; // in the claims' order
    double unallocated_j = 0;
    double other_j = 0;
    bool given_scaled = false; // the shares given added up to more than 1
    bool use_scaled = false;   // the shares used did
    // energy - (the jobs + unallocated + other): rounding only.
    [[nodiscard]] double residual_j(double energy_j) const noexcept;
};

[[nodiscard]] NodeSplit split_node(const NodeInterval& in, std::span<const JobClaim> claims);

} // namespace jp::attrib
