// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The perf_event `power` PMU as sysfs describes it
// (/sys/bus/event_source/devices/power): type number, one CPU per package, and
// the energy events with their code and joules-per-count scale.
#include "core/error.hpp"

#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jp::sensors::perf_rapl {

struct PmuEvent {
    std::string name;        // "energy-pkg"
    std::uint64_t config;    // from "event=0x02"
    double joules_per_count; // from energy-pkg.scale, e.g. 2^-32 = 2.3283064365386962890625e-10
};

struct Pmu {
    std::uint32_t type = 0;       // perf_event_attr.type
    std::vector<int> cpus;        // cpumask: the CPU to open each package's counters on
    std::vector<PmuEvent> events; // those of `names` that sysfs lists, in that order
};

// Reads the PMU in dir for the events in names. ErrorKind::not_found when the
// PMU is absent (no RAPL, or a kernel without it); parse errors name the file.
// Events that are absent, not in Joules or malformed are left out with a note.
[[nodiscard]] Result<Pmu> read_pmu(const std::filesystem::path& dir,
                                   const std::vector<std::string_view>& names,
                                   std::vector<std::string>& notes);

// "event=0x02" -> 2; nullopt for other terms (umask=..., config1=...) or garbage.
[[nodiscard]] std::optional<std::uint64_t> parse_event_config(std::string_view text);
// "2.3283064365386962890625e-10" -> the double; nullopt unless finite and > 0.
[[nodiscard]] std::optional<double> parse_scale(std::string_view text);

} // namespace jp::sensors::perf_rapl
