// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/powercap/powercap.hpp"

#include "sensors/powercap/zone.hpp"
#include "sensors/sysfs_sensor.hpp"
#include "sys/file.hpp"

#include <fmt/format.h>

namespace jp::sensors::powercap {
namespace {

std::string access_hint(const Host& host) {
    if (host.is_root) {
        return "the file is not readable even by root: check the powercap driver";
    }
    return "energy_uj is root-only since Linux 5.10 (CVE-2020-8694). Fix one of: run jouleprofd "
           "(the node daemon) as root; a udev rule `SUBSYSTEM==\"powercap\", ACTION==\"add\", "
           "RUN+=\"/bin/chmod 0444 %S%p/energy_uj\"`; or allow perf RAPL with "
           "`sysctl kernel.perf_event_paranoid=0` or CAP_PERFMON";
}

} // namespace

Discovery discover(const Host& host) {
    Discovery out;
    const auto base = sys::under_root(host.sysfs_root, "/sys/class/powercap");
    auto zones = scan_zones(base, out.notes);
    if (zones.empty()) {
        out.notes.push_back(fmt::format("powercap: no RAPL zones under {}", base.string()));
        return out;
    }
    std::vector<Channel> channels;
    std::vector<SysfsAttribute> files;
    for (auto& zone : zones) {
        auto file = sys::PolledFile::open(zone.dir / "energy_uj");
        if (!file) {
            out.unreadable.emplace_back(
                "powercap", fmt::format("zone {} ({})", zone.id, zone.name), file.error().message(),
                file.error().kind == ErrorKind::permission ? access_hint(host) : std::string{},
                zone.channel.name);
            continue;
        }
        channels.push_back(std::move(zone.channel));
        files.push_back(SysfsAttribute{std::move(*file), 1e-6}); // µJ -> J
    }
    mark_duplicate_dies(channels, files);
    if (!channels.empty()) {
        out.sensors.push_back(
            std::make_unique<SysfsSensor>("powercap", std::move(channels), std::move(files)));
    }
    return out;
}

} // namespace jp::sensors::powercap
