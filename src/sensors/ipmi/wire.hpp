// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// IPMI's little-endian fields and the names of its privilege levels, shared
// by the RMCP+ framing, the session and the command parsers.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace jp::sensors::ipmi {

[[nodiscard]] inline std::uint16_t get16(std::span<const std::uint8_t> d, std::size_t at) {
    return static_cast<std::uint16_t>(d[at] | (d[at + 1] << 8U));
}

[[nodiscard]] inline std::uint32_t get32(std::span<const std::uint8_t> d, std::size_t at) {
    return static_cast<std::uint32_t>(get16(d, at)) |
           (static_cast<std::uint32_t>(get16(d, at + 2)) << 16U);
}

inline void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    for (unsigned i = 0; i < 4; ++i) {
        out.push_back(static_cast<std::uint8_t>(v >> (8U * i)));
    }
}

// 2 user, 3 operator, 4 administrator (IPMI 2.0 table 22-15's levels a session may ask for).
[[nodiscard]] inline std::string_view privilege_name(std::uint8_t p) noexcept {
    switch (p) {
    case 2:
        return "user";
    case 3:
        return "operator";
    case 4:
        return "administrator";
    default:
        return "unknown";
    }
}

} // namespace jp::sensors::ipmi
