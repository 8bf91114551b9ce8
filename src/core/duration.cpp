// SPDX-License-Identifier: BSD-3-Clause
#include "core/duration.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <utility>

namespace jp {
namespace {

constexpr std::array k_units{
    std::pair{std::string_view{"ns"}, 1e-9},  std::pair{std::string_view{"us"}, 1e-6},
    std::pair{std::string_view{"ms"}, 1e-3},  std::pair{std::string_view{"s"}, 1.0},
    std::pair{std::string_view{"m"}, 60.0},   std::pair{std::string_view{"min"}, 60.0},
    std::pair{std::string_view{"h"}, 3600.0},
};

} // namespace

Result<Nanos> parse_duration(std::string_view text) {
    const std::string original{text};
    double number = 0;
    const char* begin = original.c_str();
    const char* end = begin + original.size();
    auto [ptr, ec] = std::from_chars(begin, end, number);
    if (ec != std::errc{} || !std::isfinite(number)) {
        return fail(ErrorKind::config, "duration '" + original + "'",
                    "expected a number with a unit, e.g. 500ms, 2s, 1m");
    }
    const std::string_view unit{ptr, static_cast<std::size_t>(end - ptr)};
    if (unit.empty() && number != 0) {
        return fail(ErrorKind::config, "duration '" + original + "'",
                    "has no unit: write e.g. " + original + "s or " + original + "ms");
    }
    double scale = unit.empty() ? 1.0 : 0.0;
    for (const auto& [name, factor] : k_units) {
        if (name == unit) {
            scale = factor;
        }
    }
    if (scale == 0.0) {
        return fail(ErrorKind::config, "duration '" + original + "'",
                    "unknown unit '" + std::string{unit} + "' (use ns, us, ms, s, m, h)");
    }
    if (number < 0) {
        return fail(ErrorKind::config, "duration '" + original + "'", "must not be negative");
    }
    const double ns = number * scale * 1e9;
    if (ns > 1e18) {
        return fail(ErrorKind::config, "duration '" + original + "'", "too long");
    }
    return Nanos{static_cast<std::int64_t>(std::llround(ns))};
}

std::string format_duration(Nanos d) {
    const double s = static_cast<double>(d.count()) * 1e-9;
    if (s < 1.0) {
        return fmt::format("{:g} ms", s * 1e3);
    }
    return fmt::format("{:.3f} s", s);
}

std::string format_hms(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) {
        return "--:--:--";
    }
    const auto total = std::llround(seconds);
    return fmt::format("{:02}:{:02}:{:02}", total / 3600, (total / 60) % 60, total % 60);
}

} // namespace jp
