// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How each channel of a shared node is split (docs/attribution.md, "The model"): the package
// whose CPU time decides its use, the share of it the job was given, and whether it goes by
// who holds it (a GPU) or by CPUs other jobs may have held too (jouleprofd's ledger).
#include "attrib/allocation.hpp"
#include "core/channel.hpp"

#include <string>

namespace jp::report {

// How one channel is split.
struct ChannelRule {
    int package = -1; // the package whose CPU time decides its use (-1: the node)
    double given = 0; // its share given to the job
    bool gpu = false; // used by whoever holds it
    int gpu_index = -1;
    std::string by;
    bool by_cpus = false; // given by CPUs (which other jobs may have held too)
};

[[nodiscard]] ChannelRule rule_for(const Channel& c, const attrib::Allocation& a);

} // namespace jp::report
