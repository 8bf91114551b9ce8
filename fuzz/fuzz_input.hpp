// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// libFuzzer's bytes as a string_view, and a cut of them at the first newline
// for targets that take two inputs.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

namespace jp::fuzz {

inline std::string_view bytes(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// ("head", "tail") around the first '\n'; ("all", "") without one.
inline std::pair<std::string_view, std::string_view> split_first_line(std::string_view in) {
    const auto nl = in.find('\n');
    if (nl == std::string_view::npos) {
        return {in, {}};
    }
    return {in.substr(0, nl), in.substr(nl + 1)};
}

} // namespace jp::fuzz
