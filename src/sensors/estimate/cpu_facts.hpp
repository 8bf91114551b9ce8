// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the kernel tells about the CPUs: model name, sockets, whether this is a VM.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace jp::sensors::estimate {

struct CpuFacts {
    // /proc/cpuinfo "model name" ("AMD EPYC 7763 64-Core Processor"); on arm64, which
    // prints none, the core named from "CPU implementer"/"CPU part" ("Arm Neoverse-N1").
    // Empty when unknown.
    std::string model_name;
    int sockets = 1;              // distinct physical packages, at least 1
    bool virtual_machine = false; // x86 "hypervisor" CPU flag
    int processors = 0;           // "processor" entries, 0 if none
};

// Parses /proc/cpuinfo text. Sockets are the distinct "physical id" values (1 if none).
[[nodiscard]] CpuFacts parse_cpuinfo(std::string_view text);

// Number of distinct physical_package_id values under
// <cpu_dir>/cpuN/topology/; 0 when the files are absent.
[[nodiscard]] int count_packages(const std::filesystem::path& cpu_dir);

// Reads /proc/cpuinfo and /sys/devices/system/cpu under root. Sysfs topology, where
// present, wins over cpuinfo's "physical id" (arm64 has no such field).
// A missing cpuinfo leaves the facts empty and adds a note.
[[nodiscard]] CpuFacts read_cpu_facts(const std::filesystem::path& root,
                                      std::vector<std::string>& notes);

} // namespace jp::sensors::estimate
