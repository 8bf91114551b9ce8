// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The kernel's CPU list format ("0-3,8,10-11": sysfs cpumask files, cpuset.cpus).
#include <optional>
#include <string_view>
#include <vector>

namespace jp::sys {

// The CPUs a list names, in its order; nullopt for an empty list, junk, a range
// backwards, or more CPUs than any kernel supports (a hostile file must not make
// us allocate gigabytes).
[[nodiscard]] std::optional<std::vector<int>> parse_cpu_list(std::string_view text);

} // namespace jp::sys
