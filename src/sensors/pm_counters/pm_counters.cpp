// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/pm_counters/pm_counters.hpp"

#include "core/update_period.hpp"
#include "sensors/pm_counters/pm_sensor.hpp"
#include "sys/file.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <fmt/format.h>

namespace jp::sensors::pm_counters {
namespace {

constexpr Nanos k_default_period = std::chrono::milliseconds{100}; // 10 Hz scan

// Energy counters that become channels. Power files are not read: the energy
// counters need no integration. The node counter contains all the others.
struct Counter {
    std::string file;    // "cpu_energy"
    std::string channel; // "cpu.pm"
    Domain domain;
    std::string cap; // "<uint> W" file giving limit_watts (0 = uncapped), or ""
};

struct CounterRow {
    std::string_view file, channel;
    Domain domain;
    std::string_view cap;
};
constexpr std::array k_counters{
    CounterRow{"energy", "node", Domain::node, "power_cap"},
    CounterRow{"cpu_energy", "cpu.pm", Domain::cpu_package, ""},
    CounterRow{"memory_energy", "memory.pm", Domain::dram, ""},
    CounterRow{"accel_energy", "gpu.pm", Domain::gpu, ""}, // XC blades: one accelerator
};

// "accel2_energy" -> 2 (EX GPU blades: accel0..accel3).
std::optional<unsigned> accel_index(std::string_view file) {
    constexpr std::string_view k_prefix = "accel";
    constexpr std::string_view k_suffix = "_energy";
    if (!file.starts_with(k_prefix) || !file.ends_with(k_suffix)) {
        return std::nullopt;
    }
    const auto digits =
        file.substr(k_prefix.size(), file.size() - k_prefix.size() - k_suffix.size());
    unsigned n = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (digits.empty() || ec != std::errc{} || ptr != digits.data() + digits.size()) {
        return std::nullopt;
    }
    return n;
}

std::vector<Counter> counters_in(const std::filesystem::path& dir) {
    std::vector<Counter> out;
    out.reserve(k_counters.size());
    for (const auto& row : k_counters) {
        out.push_back(
            {std::string{row.file}, std::string{row.channel}, row.domain, std::string{row.cap}});
    }
    std::vector<unsigned> accels;
    for (const auto& file : sys::list_dir(dir, "accel")) {
        if (auto n = accel_index(file)) {
            accels.push_back(*n);
        }
    }
    std::ranges::sort(accels);
    for (const unsigned n : accels) {
        out.push_back({fmt::format("accel{}_energy", n), fmt::format("gpu{}.pm", n), Domain::gpu,
                       fmt::format("accel{}_power_cap", n)});
    }
    return out;
}

std::optional<double> cap_watts(const std::filesystem::path& dir, const std::string& file) {
    if (file.empty()) {
        return std::nullopt;
    }
    auto text = sys::read_text(dir / file);
    auto cap = text ? parse_counter(*text, "W") : std::unexpected(ENOENT);
    if (!cap || cap->value == 0) {
        return std::nullopt;
    }
    return static_cast<double>(cap->value);
}

Channel make_channel(const std::filesystem::path& dir, const Counter& counter) {
    Channel c;
    c.name = counter.channel;
    c.domain = counter.domain;
    c.quantity = Quantity::energy;
    c.backend = "pm_counters";
    c.source = (dir / counter.file).string();
    c.limit_watts = cap_watts(dir, counter.cap);
    c.update_ns = k_pm_counters_update_ns;
    return c; // device stays "": pm_counters names no PCI address for its accelerators
}

std::string access_hint(const Host& host) {
    if (host.is_root) {
        return "not readable even by root: check the pm_counters driver";
    }
    return "HPE documents pm_counters as readable by every user, but this node restricts them: "
           "ask the administrators, or run jouleprofd (the node daemon)";
}

struct Found {
    std::vector<Channel> channels;
    std::vector<sys::PolledFile> files;
};

// Opens one counter and parses it once; absent files are simply not there.
void add_counter(const Host& host,
                 const std::filesystem::path& dir,
                 const Counter& counter,
                 Found& found,
                 Discovery& out) {
    auto file = sys::PolledFile::open(dir / counter.file);
    if (!file) {
        if (file.error().kind != ErrorKind::not_found) {
            out.unreadable.emplace_back(
                "pm_counters", counter.file, file.error().message(),
                file.error().kind == ErrorKind::permission ? access_hint(host) : std::string{});
        }
        return;
    }
    char buf[96];
    auto text = file->read(buf);
    if (!text || !parse_counter(*text, "J")) {
        out.notes.push_back(fmt::format("pm_counters: {} is not '<uint> J <uint> us', skipped",
                                        file->path().string()));
        return;
    }
    found.channels.push_back(make_channel(dir, counter));
    found.files.push_back(std::move(*file));
}

StampFiles open_stamps(const std::filesystem::path& dir, std::vector<std::string>& notes) {
    StampFiles stamps;
    if (auto f = sys::PolledFile::open(dir / "freshness")) {
        stamps.freshness = std::move(*f);
    } else {
        notes.emplace_back("pm_counters: no freshness file, snapshots are not checked for tearing");
    }
    if (auto g = sys::PolledFile::open(dir / "generation")) {
        stamps.generation = std::move(*g);
    }
    return stamps;
}

// The scan period from raw_scan_hz (10 Hz in practice).
Nanos scan_period(const std::filesystem::path& dir) {
    constexpr std::uint64_t k_max_hz = 1000;
    auto hz = sys::read_u64(dir / "raw_scan_hz");
    if (!hz || *hz == 0 || *hz > k_max_hz) {
        return k_default_period;
    }
    return Nanos{1'000'000'000 / static_cast<std::int64_t>(*hz)};
}

} // namespace

Discovery discover(const Host& host) {
    return discover(host, ReadHook{});
}

Discovery discover(const Host& host, ReadHook hook) {
    Discovery out;
    const auto dir = sys::under_root(host.sysfs_root, "/sys/cray/pm_counters");
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
        out.notes.push_back(fmt::format("pm_counters: no {} (not an HPE Cray node)", dir.string()));
        return out;
    }
    Found found;
    for (const auto& counter : counters_in(dir)) {
        add_counter(host, dir, counter, found, out);
    }
    if (found.channels.empty()) {
        out.notes.push_back(
            fmt::format("pm_counters: no readable energy counters in {}", dir.string()));
        return out;
    }
    out.sensors.push_back(
        std::make_unique<PmCountersSensor>(std::move(found.channels), std::move(found.files),
                                           open_stamps(dir, out.notes), scan_period(dir), hook));
    return out;
}

} // namespace jp::sensors::pm_counters
