// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Rated power of common server CPUs, for the estimate backend. The figures, their
// sources and which of them were cross-checked are listed in docs/cpu-models.md.
#include <span>
#include <string_view>

namespace jp::sensors::estimate {

struct CpuModelRow {
    std::string_view match;  // a whole word inside /proc/cpuinfo "model name", any case
    std::string_view name;   // product name printed in the channel source
    double tdp_watts;        // per socket: the vendor's TDP (default cTDP for AMD)
    int threads_per_socket;  // logical CPUs of one socket with SMT on
    std::string_view source; // where tdp_watts and threads_per_socket come from
};

// When no row matches: watts of TDP per visible logical CPU. Above every multi-core
// server part in the table (max 5.6 W/thread, Xeon Gold 6154) and above Cloud Carbon Footprint's
// highest per-vCPU maximum (Haswell, 5.99 W), so that an unknown CPU is overstated
// rather than understated. Justified in docs/cpu-models.md.
inline constexpr double k_generic_watts_per_thread = 6.0;

// Idle power as a fraction of TDP, unless configured: the upper end of the min/max
// ratios of Cloud Carbon Footprint's per-vCPU coefficients (0.16 to 0.32).
inline constexpr double k_default_idle_fraction = 0.3;

[[nodiscard]] std::span<const CpuModelRow> cpu_model_table() noexcept;

// The first row whose match occurs in model_name as a whole word, ignoring ASCII case
// ("Platinum 8380" matches "Xeon(R) Platinum 8380 CPU" but not "Platinum 8380H");
// null when none does.
[[nodiscard]] const CpuModelRow* find_cpu_model(std::string_view model_name) noexcept;

} // namespace jp::sensors::estimate
