// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/powercap/zone.hpp"

#include "core/update_period.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <map>

namespace jp::sensors::powercap {
namespace {

constexpr std::string_view k_control = "intel-rapl";

// "intel-rapl:1:a" -> {1, 10}; ids are printed in hex by the kernel.
std::vector<unsigned> parse_id(std::string_view id) {
    std::vector<unsigned> parts;
    id.remove_prefix(k_control.size());
    while (!id.empty() && id.front() == ':') {
        id.remove_prefix(1);
        unsigned v = 0;
        auto [ptr, ec] = std::from_chars(id.data(), id.data() + id.size(), v, 16);
        if (ec != std::errc{}) {
            return {};
        }
        parts.push_back(v);
        id.remove_prefix(static_cast<std::size_t>(ptr - id.data()));
    }
    return id.empty() ? parts : std::vector<unsigned>{};
}

// "package-1-die-0" -> "cpu1.die0"; "package-1" -> "cpu1". The identity is the
// one perf RAPL uses ("rapl:package:1"), so the two backends' views match.
std::pair<std::string, std::string> package_prefix(std::string_view name) {
    unsigned pkg = 0;
    unsigned die = 0;
    const int n = std::sscanf(std::string{name}.c_str(), "package-%u-die-%u", &pkg, &die);
    if (n == 2) {
        return {fmt::format("cpu{}.die{}", pkg, die), fmt::format("{}:die:{}", pkg, die)};
    }
    return {fmt::format("cpu{}", pkg), fmt::format("{}", pkg)};
}

void classify_top(Zone& z) {
    auto& c = z.channel;
    if (z.name.starts_with("package")) {
        const auto [prefix, id] = package_prefix(z.name);
        c.name = prefix + ".package";
        c.device = "rapl:package:" + id;
        c.domain = Domain::cpu_package;
    } else if (z.name.starts_with("psys")) {
        c.name = z.name == "psys" ? "psys" : "psys" + z.name.substr(5);
        c.device = "rapl:" + c.name;
        c.domain = Domain::psys;
    } else if (z.name == "dram") {
        c.name = "dram" + std::to_string(parse_id(z.id).at(0));
        c.domain = Domain::dram;
    } else {
        c.name = "rapl." + z.name;
        c.domain = Domain::other;
        c.counted = false;
    }
}

void classify_sub(Zone& z, const Zone& parent) {
    auto& c = z.channel;
    const auto prefix = parent.channel.name.substr(0, parent.channel.name.rfind('.'));
    c.name = prefix + "." + z.name;
    c.parent = parent.channel.name;
    const auto& pdev = parent.channel.device; // "rapl:package:N"
    if (pdev.starts_with("rapl:package:")) {
        c.device = "rapl:" + z.name + ":" + pdev.substr(13);
    }
    if (z.name == "dram") {
        c.domain = Domain::dram; // separate from the package: counted
    } else {
        c.domain = z.name == "core" ? Domain::cpu_core : Domain::cpu_uncore;
        c.counted = false; // inside the package counter
    }
}

std::optional<double> long_term_limit(const std::filesystem::path& dir) {
    for (int i = 0; i < 8; ++i) {
        auto name = sys::read_trimmed(dir / fmt::format("constraint_{}_name", i));
        if (!name) {
            break;
        }
        if (*name == "long_term") {
            if (auto uw = sys::read_u64(dir / fmt::format("constraint_{}_power_limit_uw", i))) {
                return static_cast<double>(*uw) * 1e-6;
            }
        }
    }
    return std::nullopt;
}

// The highest power any constraint allows (short_term and peak limits lie
// above long_term; constraint_N_max_power_uw, where present, above them all).
std::optional<double> highest_constraint(const std::filesystem::path& dir) {
    std::optional<double> most;
    for (int i = 0; i < 8; ++i) {
        if (!sys::read_trimmed(dir / fmt::format("constraint_{}_name", i))) {
            break;
        }
        for (const char* what : {"power_limit_uw", "max_power_uw"}) {
            if (auto uw = sys::read_u64(dir / fmt::format("constraint_{}_{}", i, what));
                uw && *uw > 0) {
                most = std::max(most.value_or(0.0), static_cast<double>(*uw) * 1e-6);
            }
        }
    }
    return most;
}

std::optional<Zone> read_zone(const std::filesystem::path& base,
                              const std::string& id,
                              std::vector<std::string>& notes) {
    Zone z{id, {}, base / id, {}};
    auto name = sys::read_trimmed(z.dir / "name");
    if (!name) {
        notes.push_back("powercap: " + name.error().message());
        return std::nullopt;
    }
    z.name = *name;
    z.channel.quantity = Quantity::energy;
    z.channel.backend = "powercap";
    z.channel.source = (z.dir / "energy_uj").string();
    if (auto range = sys::read_u64(z.dir / "max_energy_range_uj")) {
        z.channel.wrap_joules = static_cast<double>(*range) * 1e-6;
    } else {
        notes.push_back("powercap: " + range.error().message() + " (wrap cannot be corrected)");
    }
    z.channel.limit_watts = long_term_limit(z.dir);
    z.channel.max_watts = highest_constraint(z.dir);
    z.channel.update_ns = k_rapl_update_ns;
    return z;
}

} // namespace

std::vector<Zone> scan_zones(const std::filesystem::path& base, std::vector<std::string>& notes) {
    std::map<std::vector<unsigned>, Zone> by_id; // ordered: parents before children
    for (const auto& entry : sys::list_dir(base, k_control)) {
        if (entry.starts_with("intel-rapl-mmio")) {
            notes.push_back("powercap: " + entry + " skipped (MMIO duplicate of the MSR package)");
            continue;
        }
        auto id = parse_id(entry);
        if (id.empty() || id.size() > 2) {
            continue; // the control type directory itself
        }
        if (auto z = read_zone(base, entry, notes)) {
            by_id.emplace(std::move(id), std::move(*z));
        }
    }
    bool has_psys = false;
    for (auto& [id, z] : by_id) {
        if (id.size() == 1) {
            classify_top(z);
            has_psys = has_psys || z.channel.domain == Domain::psys;
        } else if (auto parent = by_id.find({id[0]}); parent != by_id.end()) {
            classify_sub(z, parent->second);
        }
    }
    std::vector<Zone> out;
    for (auto& [id, z] : by_id) {
        if (z.channel.name.empty()) {
            continue; // subzone without its parent
        }
        const bool platform_part =
            z.channel.domain == Domain::cpu_package || (z.channel.domain == Domain::dram);
        if (has_psys && platform_part && z.channel.counted) {
            z.channel.counted = false; // psys contains the packages and memory
            z.channel.parent = "psys";
        }
        out.push_back(std::move(z));
    }
    return out;
}

void mark_duplicate_dies(std::vector<Channel>& channels, std::vector<SysfsAttribute>& files) {
    std::map<std::string, std::pair<std::uint64_t, std::string>> first_die; // cpuN -> value, name
    for (std::size_t i = 0; i < channels.size(); ++i) {
        auto& c = channels[i];
        const auto dot = c.name.find(".die");
        if (c.domain != Domain::cpu_package || dot == std::string::npos || !c.counted) {
            continue;
        }
        auto value = files[i].file.read_u64();
        if (!value || *value == 0) {
            continue;
        }
        const auto socket = c.name.substr(0, dot);
        auto [it, inserted] = first_die.try_emplace(socket, *value, c.name);
        if (!inserted && it->second.first == *value) {
            c.counted = false;
            c.parent = it->second.second;
        }
    }
}

} // namespace jp::sensors::powercap
