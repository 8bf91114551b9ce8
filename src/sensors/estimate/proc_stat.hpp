// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The aggregate "cpu" line of /proc/stat, read without allocating (proc(5)).
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace jp::sensors::estimate {

// Cumulative ticks (USER_HZ, normally 1/100 s) summed over the online CPUs.
struct CpuTimes {
    // user + nice + system + irq + softirq: work done on this machine's CPUs.
    // guest and guest_nice are already inside user and nice, so they are not added again.
    std::uint64_t busy_ticks = 0;
    // busy + idle + iowait + steal. iowait is idle time (nothing ran); steal is time the
    // hypervisor gave the physical CPU to someone else, so it counts as elapsed but not busy.
    std::uint64_t total_ticks = 0;
};

// Parses the first line of /proc/stat ("cpu  user nice system idle [iowait irq softirq
// steal guest guest_nice]"). Needs at least the four fields of every kernel and a
// complete line (ending in '\n'); extra fields of newer kernels are ignored.
// nullopt when the text is empty, truncated, or not numbers.
[[nodiscard]] std::optional<CpuTimes> parse_cpu_line(std::string_view stat_text) noexcept;

// The "cpuN" lines of /proc/stat: (N, its ticks) in the order given. Lines that are not
// per-CPU lines are skipped; a per-CPU line that does not parse ends the list (nullopt).
[[nodiscard]] std::optional<std::vector<std::pair<int, CpuTimes>>>
parse_per_cpu(std::string_view stat_text);

// Number of per-CPU lines ("cpu0", "cpu1", ...): the online logical CPUs. 0 if none.
[[nodiscard]] int count_cpu_lines(std::string_view stat_text) noexcept;

// Fraction of the ticks between two snapshots that were busy, in [0, 1].
// nullopt when no tick elapsed or a counter went back (a CPU taken offline drops its
// ticks from the sum).
[[nodiscard]] std::optional<double> busy_fraction(const CpuTimes& before,
                                                  const CpuTimes& after) noexcept;

} // namespace jp::sensors::estimate
