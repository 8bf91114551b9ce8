// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/perf_rapl/pmu.hpp"

#include "sys/cpu_list.hpp"
#include "sys/file.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace jp::sensors::perf_rapl {
namespace {

template <class T> std::optional<T> whole_number(std::string_view s, int base = 10) {
    T v{};
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size()) {
        return std::nullopt;
    }
    return v;
}

std::optional<PmuEvent> read_event(const std::filesystem::path& events,
                                   std::string_view name,
                                   std::vector<std::string>& notes) {
    const auto file = events / std::string{name};
    auto code = sys::read_trimmed(file);
    if (!code) {
        return std::nullopt; // not on this CPU: sysfs lists only the supported events
    }
    auto config = parse_event_config(*code);
    auto scale_text = sys::read_trimmed(events / fmt::format("{}.scale", name));
    auto scale = scale_text ? parse_scale(*scale_text) : std::nullopt;
    auto unit = sys::read_trimmed(events / fmt::format("{}.unit", name));
    if (!config || !scale || (unit && *unit != "Joules")) {
        notes.push_back(fmt::format("perf_rapl: {} skipped: event '{}', scale '{}', unit '{}'",
                                    file.string(), *code, scale_text.value_or("?"),
                                    unit.value_or("?")));
        return std::nullopt;
    }
    return PmuEvent{std::string{name}, *config, *scale};
}

} // namespace

std::optional<std::uint64_t> parse_event_config(std::string_view text) {
    text = sys::trim(text);
    constexpr std::string_view k_term = "event=";
    if (!text.starts_with(k_term)) {
        return std::nullopt;
    }
    text.remove_prefix(k_term.size());
    if (text.starts_with("0x") || text.starts_with("0X")) {
        return whole_number<std::uint64_t>(text.substr(2), 16);
    }
    return whole_number<std::uint64_t>(text);
}

std::optional<double> parse_scale(std::string_view text) {
    text = sys::trim(text);
    double v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size() ||
        !std::isfinite(v) || v <= 0) {
        return std::nullopt;
    }
    return v;
}

Result<Pmu> read_pmu(const std::filesystem::path& dir,
                     const std::vector<std::string_view>& names,
                     std::vector<std::string>& notes) {
    auto type = sys::read_u64(dir / "type");
    if (!type) {
        return std::unexpected(type.error());
    }
    if (*type > std::numeric_limits<std::uint32_t>::max()) {
        return fail(ErrorKind::parse, (dir / "type").string(), std::to_string(*type));
    }
    auto mask = sys::read_trimmed(dir / "cpumask");
    if (!mask) {
        return std::unexpected(mask.error());
    }
    auto cpus = sys::parse_cpu_list(*mask);
    if (!cpus) {
        return fail(ErrorKind::parse, (dir / "cpumask").string(), "'" + *mask + "'");
    }
    Pmu pmu{static_cast<std::uint32_t>(*type), std::move(*cpus), {}};
    for (const auto name : names) {
        if (auto event = read_event(dir / "events", name, notes)) {
            pmu.events.push_back(std::move(*event));
        }
    }
    return pmu;
}

} // namespace jp::sensors::perf_rapl
