// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The CPU power model: which TDP, idle fraction and share of a socket this machine has.
#include "sensors/estimate/cpu_facts.hpp"

#include <string>
#include <vector>

namespace jp {
struct NodeModel;
}

namespace jp::sensors::estimate {

struct CpuPowerModel {
    std::string name;              // "AMD EPYC 7763", or "generic (no table row matches ...)"
    std::string detected;          // configured or /proc/cpuinfo model name, "" if unknown
    bool generic = false;          // no table row and no configured TDP
    double tdp_watts = 0;          // per socket
    double threads_per_socket = 0; // logical CPUs of a full socket
    double idle_fraction = 0;      // power at 0 % busy, as a fraction of TDP
    double share = 0;              // sockets' worth this machine draws: 2/128 for 2 vCPUs
    std::string source;            // one line for Channel::source

    // Watts at busy fraction u in [0, 1]:
    // share × TDP × (idle_fraction + (1 − idle_fraction) × u).
    [[nodiscard]] double watts(double busy) const noexcept;
    [[nodiscard]] double max_watts() const noexcept { return share * tdp_watts; }
};

// Chooses the figures, in this order: the config (overrides, may be null), the model
// table row matching the configured or detected model name, the generic per-thread
// figure. visible_cpus > 0 is the number of online logical CPUs.
//
// share: on bare metal every socket draws power whatever the OS has online, so
// share = sockets. In a VM (x86 "hypervisor" flag) only the visible vCPUs' part of a
// socket is ours: share = visible / threads_per_socket, capped at the VM's sockets.
// Invalid configured values are ignored with a note.
[[nodiscard]] CpuPowerModel resolve_cpu_model(const CpuFacts& facts,
                                              int visible_cpus,
                                              const NodeModel* overrides,
                                              std::vector<std::string>& notes);

} // namespace jp::sensors::estimate
