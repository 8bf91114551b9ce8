// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/hwmon/classify.hpp"

#include "sys/file.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <optional>

namespace jp::sensors::hwmon {
namespace {

// Lower-case, with anything but [a-z0-9] replaced by '_': labels become name parts.
std::string slug(std::string_view s) {
    std::string out;
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        out.push_back(std::isalnum(c) != 0 ? static_cast<char>(std::tolower(c)) : '_');
    }
    return out;
}

// "Esocket1" with prefix "Esocket" -> 1.
std::optional<unsigned> number_after(std::string_view label, std::string_view prefix) {
    if (!label.starts_with(prefix)) {
        return std::nullopt;
    }
    label.remove_prefix(prefix.size());
    unsigned n = 0;
    const auto [ptr, ec] = std::from_chars(label.data(), label.data() + label.size(), n);
    if (ec != std::errc{} || ptr != label.data() + label.size()) {
        return std::nullopt;
    }
    return n;
}

// acpi_power_meter: the node's own meter (often BMC-backed), power1_average only.
void classify_power_meter(const Device& /*dev*/, const Attribute& attr, Channel& c) {
    c.name = attr.index == 1 ? "node" : fmt::format("node.{}", attr.base());
    c.domain = Domain::node;
}

// amdgpu: power1 is the board/SoC power ("PPT", or "slowPPT" on APUs, where it
// includes the CPU); further indices ("fastPPT") measure the same SoC again.
void classify_amdgpu(const Device& dev, const Attribute& attr, Channel& c) {
    const auto main = fmt::format("gpu.amdgpu.{}", dev.pci.empty() ? dev.id : dev.pci);
    c.domain = Domain::gpu;
    c.device = dev.pci.empty() ? std::string{} : "pci:" + dev.pci;
    if (attr.index == 1) {
        c.name = main;
        return;
    }
    c.name = fmt::format("{}.{}", main, attr.label.empty() ? attr.base() : slug(attr.label));
    c.counted = false;
    c.parent = main;
}

// Package of a logical CPU from sysfs topology; nullopt if unknown.
std::optional<std::uint64_t> package_of(const Device& dev, unsigned cpu) {
    auto pkg = sys::read_u64(sys::under_root(
        dev.sysfs_root,
        fmt::format("/sys/devices/system/cpu/cpu{}/topology/physical_package_id", cpu)));
    return pkg ? std::optional{*pkg} : std::nullopt;
}

void classify_other(const Device& dev, const Attribute& attr, Channel& c);

// amd_energy (out-of-tree): "Esocket<N>" is the package counter that powercap
// RAPL also reads (same identity, so one of them is dropped); "Ecore<NNN>" is
// one core (logical CPU NNN), inside its package.
void classify_amd_energy(const Device& dev, const Attribute& attr, Channel& c) {
    if (auto socket = number_after(attr.label, "Esocket")) {
        c.name = fmt::format("cpu{}.package", *socket);
        c.domain = Domain::cpu_package;
        c.device = fmt::format("rapl:package:{}", *socket);
        return;
    }
    auto core = number_after(attr.label, "Ecore");
    if (!core) {
        classify_other(dev, attr, c);
        return;
    }
    c.domain = Domain::cpu_core;
    c.counted = false;
    if (auto pkg = package_of(dev, *core)) {
        c.name = fmt::format("cpu{}.core{}", *pkg, *core);
        c.parent = fmt::format("cpu{}.package", *pkg);
    } else {
        c.name = fmt::format("core{}", *core);
    }
}

// Unknown drivers are shown but never summed: we cannot tell what they contain.
void classify_other(const Device& dev, const Attribute& attr, Channel& c) {
    c.name = fmt::format("hwmon.{}.{}", slug(dev.name),
                         attr.label.empty() ? attr.base() : slug(attr.label));
    c.domain = Domain::other;
    c.counted = false;
}

constexpr std::array k_classes{
    DeviceClass{"power_meter", PowerPreference::input_first, classify_power_meter},
    DeviceClass{"amdgpu", PowerPreference::average_first, classify_amdgpu},
    DeviceClass{"amd_energy", PowerPreference::input_first, classify_amd_energy},
    DeviceClass{"", PowerPreference::input_first, classify_other},
};

bool is_pci_address(std::string_view s) {
    // "dddd:bb:dd.f", hexadecimal digits
    constexpr std::string_view k_shape = "xxxx:xx:xx.x";
    if (s.size() != k_shape.size()) {
        return false;
    }
    for (std::size_t i = 0; i < s.size(); ++i) {
        const bool ok = k_shape[i] == 'x' ? std::isxdigit(static_cast<unsigned char>(s[i])) != 0
                                          : s[i] == k_shape[i];
        if (!ok) {
            return false;
        }
    }
    return true;
}

} // namespace

const DeviceClass& class_of(std::string_view name) {
    const auto* it = std::ranges::find_if(
        k_classes, [&](const DeviceClass& c) { return c.name == name || c.name.empty(); });
    return *it; // the last row matches every name
}

Channel make_channel(const Device& dev, const DeviceClass& cls, const Attribute& attr) {
    Channel c;
    c.quantity = attr.kind->quantity;
    c.backend = "hwmon";
    c.source = (dev.dir / attr.file).string();
    if (attr.kind->quantity == Quantity::power) {
        if (auto cap_uw = sys::read_u64(dev.dir / (attr.base() + "_cap")); cap_uw && *cap_uw > 0) {
            c.limit_watts = static_cast<double>(*cap_uw) * 1e-6;
        }
    }
    cls.classify(dev, attr, c);
    return c;
}

std::string pci_address(const std::filesystem::path& device_link) {
    std::error_code ec;
    auto target = std::filesystem::canonical(device_link, ec);
    if (ec) {
        return {};
    }
    auto name = target.filename().string();
    std::ranges::transform(name, name.begin(), [](char ch) {
        return static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    });
    return is_pci_address(name) ? name : std::string{};
}

} // namespace jp::sensors::hwmon
