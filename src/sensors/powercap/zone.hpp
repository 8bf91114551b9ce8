// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Discovery of powercap RAPL zones: names, hierarchy, wrap ranges, limits.
#include "core/channel.hpp"
#include "sensors/sysfs_sensor.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace jp::sensors::powercap {

struct Zone {
    std::string id;   // directory name, "intel-rapl:0:1"
    std::string name; // content of `name`, "dram"
    std::filesystem::path dir;
    Channel channel; // named and classified; counted/parent set by the hierarchy
};

// Zones of the `intel-rapl` control type under base (/sys/class/powercap),
// packages first, with domains classified by `name` (never by index).
// MMIO duplicates (intel-rapl-mmio) are skipped with a note.
[[nodiscard]] std::vector<Zone> scan_zones(const std::filesystem::path& base,
                                           std::vector<std::string>& notes);

// Several dies of one AMD socket may expose the very same package counter:
// those read identically are marked not counted (Intel dies differ and stay).
void mark_duplicate_dies(std::vector<Channel>& channels, std::vector<SysfsAttribute>& files);

} // namespace jp::sensors::powercap
