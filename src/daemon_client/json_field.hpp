// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Integers from what a peer sent, checked: nlohmann's get<int>() of a JSON
// float is undefined behaviour beyond the integer's range (2e52 as a long).
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace jp::daemon {

// v when it is a JSON integer within [lo, hi]; nullopt for a float, a string,
// or an integer outside the range.
[[nodiscard]] inline std::optional<std::int64_t>
integer_in(const nlohmann::json& v, std::int64_t lo, std::int64_t hi) {
    if (!v.is_number_integer() ||
        (v.is_number_unsigned() &&
         v.get<std::uint64_t>() > std::uint64_t{std::numeric_limits<std::int64_t>::max()})) {
        return std::nullopt;
    }
    const auto n = v.get<std::int64_t>();
    return n >= lo && n <= hi ? std::optional{n} : std::nullopt;
}

// The field `key` of the object j: fallback when it is absent or null, else as integer_in.
[[nodiscard]] inline std::optional<std::int64_t> integer_field(const nlohmann::json& j,
                                                               std::string_view key,
                                                               std::int64_t fallback,
                                                               std::int64_t lo,
                                                               std::int64_t hi) {
    const auto it = j.find(key); // end() when j is not an object
    if (it == j.end() || it->is_null()) {
        return fallback;
    }
    return integer_in(*it, lo, hi);
}

} // namespace jp::daemon
