// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The estimated memory power channel "dram.estimate": installed memory × W/GiB.
#include "sensors/sensor.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jp::sensors::estimate {

// ~3 W per 8 GB DDR3/DDR4 module (Crucial, used by CodeCarbon before v3), per GiB.
inline constexpr double k_default_dram_watts_per_gib = 0.375;

// "MemTotal:  24684096 kB" from /proc/meminfo text, in KiB (the kernel's "kB" is 1024 B).
// nullopt when the line is missing or malformed.
[[nodiscard]] std::optional<std::uint64_t> parse_mem_total_kib(std::string_view meminfo);

// A constant-power sensor from /proc/meminfo under host.sysfs_root and the config's
// [node] dram_watts_per_gib. Returns null with a note when meminfo is missing or
// malformed. Never throws for missing files.
[[nodiscard]] std::unique_ptr<Sensor> discover_dram(const Host& host,
                                                    std::vector<std::string>& notes);

} // namespace jp::sensors::estimate
