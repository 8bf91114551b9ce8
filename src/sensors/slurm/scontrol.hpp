// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What Slurm's own tools print about energy, parsed (no I/O here).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jp::sensors::slurm {

// `scontrol show config` (text): the energy plugin and how often slurmd polls it.
struct EnergyConfig {
    std::string plugin;                  // "acct_gather_energy/rapl"; empty when not said
    std::optional<std::int64_t> node_ns; // AcctGatherNodeFreq
};
[[nodiscard]] EnergyConfig parse_config(std::string_view text);

// `scontrol show node -o NAME`: the node's energy as slurmd last polled it.
// Values Slurm prints as "n/a" or "n/s" are absent.
struct NodeEnergy {
    bool found = false; // a NodeName= record was there
    std::optional<double> current_watts;
    std::optional<double> ave_watts;
    std::optional<double> consumed_joules; // printed by Slurm releases that have it
};
[[nodiscard]] NodeEnergy parse_node(std::string_view text);

// `sstat -n -P --noconvert -o ConsumedEnergyRaw -j JOB.STEP`: joules so far.
[[nodiscard]] std::optional<double> parse_step_energy(std::string_view text);

// The step this process runs in, as sstat names it ("42.0", "42.batch"), from
// SLURM_JOB_ID / SLURM_STEP_ID values; empty when not in a step.
[[nodiscard]] std::string step_name(std::string_view job_id, std::string_view step_id);

} // namespace jp::sensors::slurm
