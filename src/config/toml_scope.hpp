// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One table of a TOML file being validated: typed getters that refuse wrong
// types, NaN and infinities, a check that only known keys appear, and errors
// that name the file, line, table and key ("a.toml:3: [node] rated_watts:
// must be positive"). Shared by the config, study and jouleprofd parsers.
#include "core/duration.hpp"
#include "core/error.hpp"

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <vector>

namespace jp {

using Keys = std::initializer_list<std::string_view>;

[[nodiscard]] std::string joined(std::span<const std::string_view> names);

struct TomlScope {
    std::string_view origin;
    const toml::table& table;
    std::string name; // "[node]", "[[workload]] #2"

    [[nodiscard]] std::unexpected<Error>
    error(const toml::node& at, std::string_view key, std::string detail) const;
    // An error unless every key of the table is in allowed.
    [[nodiscard]] Result<void> only(Keys allowed) const;
    [[nodiscard]] Result<void> only(std::span<const std::string_view> allowed) const;
    // The sub-table at key, or absent; another type is an error.
    [[nodiscard]] Result<std::optional<TomlScope>> table_at(std::string_view key) const;

    // Absent keys give an empty optional; a value of another type is an error.
    [[nodiscard]] Result<std::optional<std::string>> string(std::string_view key) const;
    [[nodiscard]] Result<std::optional<bool>> boolean(std::string_view key) const;
    // A finite number >= 0 (> 0 when positive).
    [[nodiscard]] Result<std::optional<double>> number(std::string_view key, bool positive) const;
    // An array of strings.
    [[nodiscard]] Result<std::optional<std::vector<std::string>>>
    strings(std::string_view key) const;

    // These leave out untouched when the key is absent.
    // A whole number in [min, max].
    [[nodiscard]] Result<void> integer(std::string_view key, long min, long max, int& out) const;
    // A duration string ("500ms") from min to max.
    [[nodiscard]] Result<void>
    duration(std::string_view key, Nanos min, Nanos& out, Nanos max = Nanos::max()) const;
};

} // namespace jp
