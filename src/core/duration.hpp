// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Durations as users type them: "500ms", "2s", "1.5m", "1h", "250us", bare numbers are seconds.
#include "core/error.hpp"

#include <chrono>
#include <string>
#include <string_view>

namespace jp {

using Nanos = std::chrono::nanoseconds;

// "500ms", "2s", "1.5m", "0": a number and a unit (ns, us, ms, s, m, h); a bare
// number other than 0 is an error, as its unit would be a guess.
[[nodiscard]] Result<Nanos> parse_duration(std::string_view text);

// "1.500 s", "500 ms", "01:02:03" style is format_hms.
[[nodiscard]] std::string format_duration(Nanos d);
// "hh:mm:ss" as in the study's tables.
[[nodiscard]] std::string format_hms(double seconds);

} // namespace jp
