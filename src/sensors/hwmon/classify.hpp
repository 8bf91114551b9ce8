// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What an hwmon device is, decided by its `name`: one table row per known
// driver, and a catch-all that shows the channel without summing it.
#include "core/channel.hpp"
#include "sensors/hwmon/attributes.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace jp::sensors::hwmon {

struct Device {
    std::string id;                   // "hwmon3" (not stable across boots)
    std::string name;                 // content of `name`, "amdgpu"
    std::filesystem::path dir;        // where the attribute files are
    std::string pci;                  // "0000:03:00.0" from the `device` link, or ""
    std::filesystem::path sysfs_root; // for CPU topology look-ups
};

struct DeviceClass {
    std::string_view name; // hwmon `name`; "" is the catch-all row
    PowerPreference power;
    // Sets name, domain, counted, parent and device identity of one channel.
    void (*classify)(const Device& dev, const Attribute& attr, Channel& out);
};

// The row for a driver name; the catch-all (Domain::other, not counted) if unknown.
[[nodiscard]] const DeviceClass& class_of(std::string_view name);

// A classified channel for attr, with units, source path and power cap.
[[nodiscard]] Channel
make_channel(const Device& dev, const DeviceClass& cls, const Attribute& attr);

// Lower-case PCI address ("0000:03:00.0") that the `device` link resolves to,
// or "" when it is absent or not a PCI device.
[[nodiscard]] std::string pci_address(const std::filesystem::path& device_link);

} // namespace jp::sensors::hwmon
