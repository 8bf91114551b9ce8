// SPDX-License-Identifier: BSD-3-Clause
#include "config/toml_scope.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace jp {

std::string joined(std::span<const std::string_view> names) {
    std::string out;
    for (auto k : names) {
        out += (out.empty() ? "" : ", ") + std::string{k};
    }
    return out;
}

std::unexpected<Error>
TomlScope::error(const toml::node& at, std::string_view key, std::string detail) const {
    const auto what = key.empty() ? name : name + " " + std::string{key};
    return fail(ErrorKind::config, fmt::format("{}:{}: {}", origin, at.source().begin.line, what),
                std::move(detail));
}

Result<void> TomlScope::only(Keys allowed) const {
    return only(std::span<const std::string_view>{allowed.begin(), allowed.size()});
}

Result<void> TomlScope::only(std::span<const std::string_view> allowed) const {
    for (const auto& [key, value] : table) {
        if (std::ranges::find(allowed, key.str()) == allowed.end()) {
            return error(value, key.str(),
                         fmt::format("unknown key (known here: {})", joined(allowed)));
        }
    }
    return {};
}

Result<std::optional<TomlScope>> TomlScope::table_at(std::string_view key) const {
    const auto* node = table.get(key);
    if (node == nullptr) {
        return std::optional<TomlScope>{};
    }
    const auto* t = node->as_table();
    if (t == nullptr) {
        return error(*node, key, "must be a table");
    }
    return std::optional<TomlScope>{TomlScope{origin, *t, "[" + std::string{key} + "]"}};
}

Result<std::optional<std::string>> TomlScope::string(std::string_view key) const {
    const auto* node = table.get(key);
    if (node == nullptr) {
        return std::optional<std::string>{};
    }
    if (!node->is_string()) {
        return error(*node, key, "must be a string");
    }
    return std::optional<std::string>{node->value<std::string>()};
}

Result<std::optional<bool>> TomlScope::boolean(std::string_view key) const {
    const auto* node = table.get(key);
    if (node == nullptr) {
        return std::optional<bool>{};
    }
    if (!node->is_boolean()) {
        return error(*node, key, "must be true or false");
    }
    return std::optional<bool>{node->value<bool>()};
}

Result<std::optional<double>> TomlScope::number(std::string_view key, bool positive) const {
    const auto* node = table.get(key);
    if (node == nullptr) {
        return std::optional<double>{};
    }
    std::optional<double> value;
    if (const auto* i = node->as_integer()) {
        value = static_cast<double>(i->get());
    } else if (const auto* f = node->as_floating_point()) {
        value = f->get();
    }
    if (!value || !std::isfinite(*value)) {
        return error(*node, key, "must be a finite number");
    }
    if (*value < 0 || (positive && *value == 0)) {
        return error(*node, key, "must be positive");
    }
    return value;
}

Result<std::optional<std::vector<std::string>>> TomlScope::strings(std::string_view key) const {
    const auto* node = table.get(key);
    if (node == nullptr) {
        return std::optional<std::vector<std::string>>{};
    }
    const auto* array = node->as_array();
    std::vector<std::string> out;
    if (array != nullptr) {
        for (const auto& item : *array) {
            if (!item.is_string()) {
                array = nullptr;
                break;
            }
            out.push_back(item.value<std::string>().value_or(""));
        }
    }
    if (array == nullptr) {
        return error(*node, key, R"(must be an array of strings: ["a", "b"])");
    }
    return std::optional<std::vector<std::string>>{std::move(out)};
}

Result<void> TomlScope::integer(std::string_view key, long min, long max, int& out) const {
    const auto* node = table.get(key);
    if (node == nullptr) {
        return {};
    }
    const auto* i = node->as_integer();
    if (i == nullptr || i->get() < min || i->get() > max) {
        return error(*node, key,
                     max >= 1'000'000
                         ? fmt::format("must be a whole number of at least {}", min)
                         : fmt::format("must be a whole number from {} to {}", min, max));
    }
    out = static_cast<int>(i->get());
    return {};
}

Result<void> TomlScope::duration(std::string_view key, Nanos min, Nanos& out, Nanos max) const {
    auto s = string(key);
    if (!s) {
        return std::unexpected(s.error());
    }
    if (!*s) {
        return {};
    }
    auto d = parse_duration(**s);
    if (!d || *d < min || *d > max) {
        const auto text = [](Nanos n) { // a limit as it would be written: "1 ms", "1 s"
            const double sec = static_cast<double>(n.count()) * 1e-9;
            return sec < 1 ? fmt::format("{:g} ms", sec * 1e3) : fmt::format("{:g} s", sec);
        };
        std::string rule = max != Nanos::max()
                               ? fmt::format("must be from {} to {}", text(min), text(max))
                           : min <= Nanos{1} ? std::string{"must be longer than 0"}
                                             : fmt::format("must be at least {}", text(min));
        return error(*table.get(key), key, d ? std::move(rule) : d.error().detail);
    }
    out = *d;
    return {};
}

} // namespace jp
