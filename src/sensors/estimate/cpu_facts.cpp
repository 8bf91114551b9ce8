// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/estimate/cpu_facts.hpp"

#include "sys/file.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <fmt/format.h>
#include <optional>
#include <set>

namespace jp::sensors::estimate {
namespace {

struct ArmPart {
    unsigned implementer;
    unsigned part;
    std::string_view name;
};

// arm64 /proc/cpuinfo names the core by id only (arch/arm64/include/asm/cputype.h).
constexpr std::array k_arm_parts{
    ArmPart{0x41, 0xd0c, "Arm Neoverse-N1"}, ArmPart{0x41, 0xd40, "Arm Neoverse-V1"},
    ArmPart{0x41, 0xd49, "Arm Neoverse-N2"}, ArmPart{0x41, 0xd4f, "Arm Neoverse-V2"},
    ArmPart{0xc0, 0xac3, "AmpereOne"},
};

// "0x41" -> 65; nullopt when malformed.
std::optional<unsigned> parse_hex(std::string_view s) {
    s = sys::trim(s);
    if (!s.starts_with("0x")) {
        return std::nullopt;
    }
    s.remove_prefix(2);
    unsigned v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
    if (ec != std::errc{} || ptr != s.data() + s.size()) {
        return std::nullopt;
    }
    return v;
}

std::string arm_core_name(std::string_view implementer, std::string_view part) {
    const auto impl = parse_hex(implementer);
    const auto id = parse_hex(part);
    if (!impl || !id) {
        return {};
    }
    for (const auto& p : k_arm_parts) {
        if (p.implementer == *impl && p.part == *id) {
            return std::string{p.name};
        }
    }
    return fmt::format("Arm implementer {:#x} part {:#x}", *impl, *id);
}

bool has_flag(std::string_view flags, std::string_view flag) {
    for (std::size_t pos = flags.find(flag); pos != std::string_view::npos;
         pos = flags.find(flag, pos + 1)) {
        const bool starts = pos == 0 || flags[pos - 1] == ' ';
        const std::size_t end = pos + flag.size();
        if (starts && (end == flags.size() || flags[end] == ' ')) {
            return true;
        }
    }
    return false;
}

} // namespace

CpuFacts parse_cpuinfo(std::string_view text) {
    CpuFacts facts;
    std::set<std::string, std::less<>> physical_ids;
    std::string implementer;
    std::string part;
    while (!text.empty()) {
        const auto eol = text.find('\n');
        const auto line = text.substr(0, eol);
        text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) {
            continue;
        }
        const auto key = sys::trim(line.substr(0, colon));
        const auto value = sys::trim(line.substr(colon + 1));
        if (key == "processor") {
            ++facts.processors;
        } else if (key == "model name" && facts.model_name.empty()) {
            facts.model_name = value;
        } else if (key == "physical id") {
            physical_ids.emplace(value);
        } else if (key == "flags" && has_flag(value, "hypervisor")) {
            facts.virtual_machine = true;
        } else if (key == "CPU implementer" && implementer.empty()) {
            implementer = value;
        } else if (key == "CPU part" && part.empty()) {
            part = value;
        }
    }
    if (facts.model_name.empty() && !implementer.empty()) {
        facts.model_name = arm_core_name(implementer, part);
    }
    facts.sockets = std::max(1, static_cast<int>(physical_ids.size()));
    return facts;
}

int count_packages(const std::filesystem::path& cpu_dir) {
    std::set<std::uint64_t> packages;
    for (const auto& entry : sys::list_dir(cpu_dir, "cpu")) {
        if (entry.size() < 4 || entry[3] < '0' || entry[3] > '9') {
            continue; // cpufreq, cpuidle
        }
        if (auto id = sys::read_u64(cpu_dir / entry / "topology" / "physical_package_id")) {
            packages.insert(*id);
        }
    }
    return static_cast<int>(packages.size());
}

CpuFacts read_cpu_facts(const std::filesystem::path& root, std::vector<std::string>& notes) {
    CpuFacts facts;
    if (auto text = sys::read_text(sys::under_root(root, "/proc/cpuinfo"))) {
        facts = parse_cpuinfo(*text);
    } else {
        notes.push_back(fmt::format("estimate: {}; CPU model unknown", text.error().message()));
    }
    if (const int packages = count_packages(sys::under_root(root, "/sys/devices/system/cpu"));
        packages > 0) {
        facts.sockets = packages;
    }
    return facts;
}

} // namespace jp::sensors::estimate
