// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/node_split.hpp"

#include <algorithm>
#include <cmath>

namespace jp::attrib {
namespace {

// Each claim clamped to 0..1; scaled so they add up to 1 at most. Returns the scale (1: none).
double scale_of(std::span<const JobClaim> claims, double JobClaim::*field) {
    double sum = 0;
    for (const auto& c : claims) {
        const double v = c.*field;
        sum += std::isfinite(v) ? std::clamp(v, 0.0, 1.0) : 0.0;
    }
    // Rounding (a sum of parts of a CPU) is not a claim beyond the whole.
    return sum > 1 + 1e-9 ? 1 / sum : 1;
}

double part(const JobClaim& c, double JobClaim::*field, double scale) {
    const double v = c.*field;
    return std::isfinite(v) ? std::clamp(v, 0.0, 1.0) * scale : 0.0;
}

} // namespace

double NodeSplit::residual_j(double energy_j) const noexcept {
    double sum = unallocated_j + other_j;
    for (const auto& j : jobs) {
        sum += j.total_j();
    }
    return energy_j - sum;
}

NodeSplit split_node(const NodeInterval& in, std::span<const JobClaim> claims) {
    NodeSplit out;
    const double energy = std::isfinite(in.energy_j) ? std::max(in.energy_j, 0.0) : 0.0;
    const double idle_w = std::isfinite(in.idle_w) ? in.idle_w : 0.0;
    const double seconds = std::isfinite(in.seconds) ? in.seconds : 0.0;
    const double idle = std::clamp(idle_w * seconds, 0.0, energy);
    const double dynamic = energy - idle;
    const double given_scale = scale_of(claims, &JobClaim::given);
    const double use_scale = scale_of(claims, &JobClaim::use);
    out.given_scaled = given_scale < 1;
    out.use_scaled = in.used && use_scale < 1;
    out.jobs.resize(claims.size());
    double idle_given = 0;
    double dynamic_taken = 0;
    for (std::size_t k = 0; k < claims.size(); ++k) {
        const double given = part(claims[k], &JobClaim::given, given_scale);
        const double share = in.used ? part(claims[k], &JobClaim::use, use_scale) : given;
        out.jobs[k] = {idle * given, dynamic * share};
        idle_given += out.jobs[k].idle_j;
        dynamic_taken += out.jobs[k].dynamic_j;
    }
    // What is left over (never below 0 through rounding): idle nobody was given; dynamic
    // power nobody's job used (others'), or, where nobody used the channel, nobody's.
    out.unallocated_j = std::max(idle - idle_given, 0.0);
    const double rest = std::max(dynamic - dynamic_taken, 0.0);
    (in.used ? out.other_j : out.unallocated_j) += rest;
    return out;
}

} // namespace jp::attrib
