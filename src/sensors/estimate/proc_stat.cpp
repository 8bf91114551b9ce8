// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/estimate/proc_stat.hpp"

#include <algorithm>
#include <array>
#include <charconv>

namespace jp::sensors::estimate {
namespace {

// Field order of the "cpu" line (proc(5)).
enum Field : std::size_t { user, nice, system, idle, iowait, irq, softirq, steal, k_field_count };
constexpr std::size_t k_required_fields = 4; // user nice system idle: every kernel has them

bool is_blank(char c) noexcept {
    return c == ' ' || c == '\t';
}

// Reads up to k_field_count numbers from line; returns how many, or nullopt on junk.
std::optional<std::size_t> parse_fields(std::string_view line,
                                        std::array<std::uint64_t, k_field_count>& fields) noexcept {
    std::size_t n = 0;
    const char* p = line.data();
    const char* const end = line.data() + line.size();
    while (p != end) {
        if (is_blank(*p)) {
            ++p;
            continue;
        }
        std::uint64_t value = 0;
        const auto [next, ec] = std::from_chars(p, end, value);
        if (ec != std::errc{} || (next != end && !is_blank(*next))) {
            return std::nullopt;
        }
        if (n < k_field_count) {
            fields[n] = value;
        }
        ++n;
        p = next;
    }
    return std::min(n, std::size_t{k_field_count});
}

// The ticks of a line's fields after its name.
std::optional<CpuTimes> times_of(std::string_view line) noexcept {
    std::array<std::uint64_t, k_field_count> f{};
    const auto n = parse_fields(line, f);
    if (!n || *n < k_required_fields) {
        return std::nullopt;
    }
    CpuTimes t;
    t.busy_ticks = f[user] + f[nice] + f[system] + f[irq] + f[softirq];
    t.total_ticks = t.busy_ticks + f[idle] + f[iowait] + f[steal];
    return t;
}

} // namespace

std::optional<CpuTimes> parse_cpu_line(std::string_view stat_text) noexcept {
    constexpr std::string_view prefix = "cpu ";
    const auto eol = stat_text.find('\n');
    if (!stat_text.starts_with(prefix) || eol == std::string_view::npos) {
        return std::nullopt;
    }
    return times_of(stat_text.substr(prefix.size(), eol - prefix.size()));
}

std::optional<std::vector<std::pair<int, CpuTimes>>> parse_per_cpu(std::string_view stat_text) {
    std::vector<std::pair<int, CpuTimes>> cpus;
    while (!stat_text.empty()) {
        const auto eol = stat_text.find('\n');
        if (eol == std::string_view::npos) {
            break; // a line without its end is not whole
        }
        const auto line = stat_text.substr(0, eol);
        stat_text.remove_prefix(eol + 1);
        if (line.size() <= 3 || !line.starts_with("cpu") || line[3] < '0' || line[3] > '9') {
            continue;
        }
        const auto blank = line.find_first_of(" \t");
        int id = -1;
        const auto name =
            line.substr(3, blank == std::string_view::npos ? std::string_view::npos : blank - 3);
        const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), id);
        if (ec != std::errc{} || end != name.data() + name.size() ||
            blank == std::string_view::npos) {
            return std::nullopt;
        }
        const auto t = times_of(line.substr(blank));
        if (!t) {
            return std::nullopt;
        }
        cpus.emplace_back(id, *t);
    }
    return cpus;
}

int count_cpu_lines(std::string_view stat_text) noexcept {
    int count = 0;
    while (!stat_text.empty()) {
        const auto eol = stat_text.find('\n');
        const auto line = stat_text.substr(0, eol);
        if (line.size() > 3 && line.starts_with("cpu") && line[3] >= '0' && line[3] <= '9') {
            ++count;
        }
        if (eol == std::string_view::npos) {
            break;
        }
        stat_text.remove_prefix(eol + 1);
    }
    return count;
}

std::optional<double> busy_fraction(const CpuTimes& before, const CpuTimes& after) noexcept {
    if (after.busy_ticks < before.busy_ticks || after.total_ticks < before.total_ticks ||
        after.total_ticks == before.total_ticks) {
        return std::nullopt;
    }
    const auto busy = static_cast<double>(after.busy_ticks - before.busy_ticks);
    const auto total = static_cast<double>(after.total_ticks - before.total_ticks);
    return std::clamp(busy / total, 0.0, 1.0);
}

} // namespace jp::sensors::estimate
