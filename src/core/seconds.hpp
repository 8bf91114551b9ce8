// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A count of nanoseconds as seconds, the unit every energy and power formula takes.
#include <cstdint>

namespace jp {

[[nodiscard]] constexpr double seconds_from_ns(std::int64_t ns) noexcept {
    return static_cast<double>(ns) * 1e-9;
}

} // namespace jp
