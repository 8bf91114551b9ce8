// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How often sources change their values, where the hardware documents it. Set
// on channels by their backends; also applied to traces written before channels
// carried it (schema version 1).
#include <cstdint>
#include <optional>
#include <string_view>

namespace jp {

inline constexpr std::int64_t k_rapl_update_ns = 1'000'000;          // RAPL: about every 1 ms
inline constexpr std::int64_t k_pm_counters_update_ns = 100'000'000; // HPE Cray: 10 Hz

[[nodiscard]] constexpr std::optional<std::int64_t> known_update_ns(std::string_view backend) {
    if (backend == "powercap" || backend == "perf_rapl") {
        return k_rapl_update_ns;
    }
    if (backend == "pm_counters") {
        return k_pm_counters_update_ns;
    }
    return std::nullopt;
}

} // namespace jp
