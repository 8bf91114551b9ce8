// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/hwmon/hwmon.hpp"

#include "core/clock.hpp"
#include "sensors/hwmon/attributes.hpp"
#include "sensors/hwmon/classify.hpp"
#include "sensors/sysfs_sensor.hpp"
#include "sys/file.hpp"

#include <algorithm>
#include <cerrno>
#include <fmt/format.h>

namespace jp::sensors::hwmon {
namespace {

constexpr Nanos k_max_min_interval = std::chrono::seconds{1};

std::string access_hint(const Device& dev, const Host& host) {
    if (host.is_root) {
        return "not readable even by root: check the driver";
    }
    if (dev.name == "amd_energy") {
        return "amd_energy limits energy*_input to owner and group (CVE-2020-12912): add the user "
               "to the file's group, run jouleprofd (the node daemon), or use powercap/perf RAPL";
    }
    return "ask the administrator to make the file readable (udev rule with chmod 0444), or run "
           "jouleprofd (the node daemon)";
}

// The averaging window of a power_average attribute is its update period (capped at 1 s).
Nanos update_period(const Device& dev, const Attribute& attr, Nanos current) {
    if (attr.file.ends_with("_average")) {
        if (auto ms = sys::read_u64(dev.dir / (attr.file + "_interval")); ms && *ms > 0) {
            const Nanos period = std::chrono::milliseconds{*ms};
            return std::max(current, std::min(period, k_max_min_interval));
        }
    }
    return current;
}

// What one device yielded: readable channels, and the denied ones summed up.
struct DeviceScan {
    std::vector<Channel> channels;
    std::vector<SysfsAttribute> readers;
    int denied = 0;
    std::string first_denied; // "energy1_input: Permission denied"
    Nanos period = std::chrono::milliseconds{1};
};

// Opens attr and reads it once: disabled sensors (ENODATA) are left out.
void add_attribute(const Device& dev,
                   const DeviceClass& cls,
                   const Attribute& attr,
                   DeviceScan& scan,
                   std::vector<std::string>& notes) {
    auto file = sys::PolledFile::open(dev.dir / attr.file);
    if (!file) {
        if (file.error().kind == ErrorKind::permission && scan.denied++ == 0) {
            scan.first_denied = attr.file + ": " + file.error().detail;
        }
        return;
    }
    if (auto probe = file->read_u64(); !probe && probe.error() == ENODATA) {
        notes.push_back(
            fmt::format("hwmon: {} ({}) {}: no data, skipped", dev.id, dev.name, attr.file));
        return;
    }
    scan.channels.push_back(make_channel(dev, cls, attr));
    scan.readers.push_back(SysfsAttribute{std::move(*file), attr.kind->scale});
    scan.period = update_period(dev, attr, scan.period);
}

void discover_device(const Host& host, const Device& dev, Discovery& out) {
    const auto& cls = class_of(dev.name);
    DeviceScan scan;
    for (const auto& attr : scan_attributes(dev.dir, cls.power)) {
        add_attribute(dev, cls, attr, scan, out.notes);
    }
    if (scan.denied > 0) {
        auto reason = scan.denied == 1
                          ? scan.first_denied
                          : fmt::format("{} (and {} more)", scan.first_denied, scan.denied - 1);
        out.unreadable.emplace_back("hwmon", fmt::format("{} ({})", dev.id, dev.name),
                                    std::move(reason), access_hint(dev, host));
    }
    if (!scan.channels.empty()) {
        out.sensors.push_back(std::make_unique<SysfsSensor>("hwmon", std::move(scan.channels),
                                                            std::move(scan.readers), scan.period));
    }
}

// Attributes live in hwmonN/; drivers from before Linux 3.x put them in hwmonN/device/.
std::optional<Device> read_device(const Host& host,
                                  const std::filesystem::path& dir,
                                  const std::string& id,
                                  std::vector<std::string>& notes) {
    for (const auto& attr_dir : {dir, dir / "device"}) {
        if (auto name = sys::read_trimmed(attr_dir / "name")) {
            return Device{id, *name, attr_dir, pci_address(dir / "device"), host.sysfs_root};
        }
    }
    notes.push_back(fmt::format("hwmon: {} has no readable name, skipped", id));
    return std::nullopt;
}

} // namespace

Discovery discover(const Host& host) {
    Discovery out;
    const auto base = sys::under_root(host.sysfs_root, "/sys/class/hwmon");
    const auto ids = sys::list_dir(base, "hwmon");
    if (ids.empty()) {
        out.notes.push_back(fmt::format("hwmon: no devices under {}", base.string()));
        return out;
    }
    for (const auto& id : ids) {
        if (auto dev = read_device(host, base / id, id, out.notes)) {
            discover_device(host, *dev, out);
        }
    }
    if (out.sensors.empty() && out.unreadable.empty()) {
        out.notes.push_back(
            fmt::format("hwmon: no power or energy attributes in {} devices", ids.size()));
    }
    return out;
}

} // namespace jp::sensors::hwmon
