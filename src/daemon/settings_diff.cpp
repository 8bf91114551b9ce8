// SPDX-License-Identifier: BSD-3-Clause
// What a SIGHUP leaves for the next start: the keys whose values differ between the
// config file the daemon started with and the file as it is now, outside [access] (which
// a reload applies). A key written where it was left out (a default written out) counts:
// the file, not the settings in force, is compared. An operator who changed idle_period and sent
// SIGHUP is told which of the changes wait for a restart, by name.
#include "config/config_toml.hpp"
#include "daemon/settings.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <string>
#include <type_traits>
#include <vector>

namespace jp::daemon {
namespace {

// Whether two nodes hold the same value (0x10 and 16 do; the way each is written aside).
bool same(const toml::node& a, const toml::node& b) {
    if (a.type() != b.type()) {
        return false;
    }
    return a.visit([&](const auto& x) {
        using T = std::remove_cvref_t<decltype(x)>;
        const auto* y = b.as<T>();
        return y != nullptr && x == *y;
    });
}

std::string name_of(const std::string& table, std::string_view key) {
    return table.empty() ? std::string{key} : fmt::format("[{}] {}", table, key);
}

void walk(const toml::table* before,
          const toml::table* after,
          const std::string& table,
          std::vector<std::string>& out) {
    static const toml::table k_empty;
    const auto& a = before != nullptr ? *before : k_empty;
    const auto& b = after != nullptr ? *after : k_empty;
    std::vector<std::string> keys;
    for (const auto& [k, v] : a) {
        keys.emplace_back(k.str());
    }
    for (const auto& [k, v] : b) {
        if (!a.contains(k.str())) {
            keys.emplace_back(k.str());
        }
    }
    for (const auto& key : keys) {
        if (table.empty() && key == "access") {
            continue; // applied by the reload itself
        }
        const auto* x = a.get(key);
        const auto* y = b.get(key);
        const auto* xt = x != nullptr ? x->as_table() : nullptr;
        const auto* yt = y != nullptr ? y->as_table() : nullptr;
        if (xt != nullptr || yt != nullptr) {
            if ((x == nullptr || xt != nullptr) && (y == nullptr || yt != nullptr)) {
                std::string inner = table;
                if (!inner.empty()) {
                    inner += '.';
                }
                inner += key;
                // A table on one side only, with no keys ([sensors.nvml] turns a backend
                // on): named itself, as walking it names nothing.
                if ((xt == nullptr || yt == nullptr) && (xt != nullptr ? xt : yt)->empty()) {
                    out.push_back(fmt::format("[{}]", inner));
                }
                walk(xt, yt, inner, out);
                continue;
            }
        }
        if (x == nullptr || y == nullptr || !same(*x, *y)) {
            out.push_back(name_of(table, key));
        }
    }
}

} // namespace

std::vector<std::string> changed_until_restart(std::string_view running, std::string_view file) {
    auto before = parse_toml(running, "running config");
    auto after = parse_toml(file, "config file");
    std::vector<std::string> out;
    if (before && after) {
        walk(&*before, &*after, "", out);
    }
    std::ranges::sort(out);
    return out;
}

} // namespace jp::daemon
