// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/redfish/sensor_resource.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <fmt/format.h>

namespace jp::sensors::redfish {
namespace {

struct Unit {
    std::string_view name;
    double scale; // to W or J
    Quantity quantity;
};

// ReadingUnits of the ReadingTypes a chassis meter uses (UCUM, as Redfish writes them).
constexpr std::array k_units{
    Unit{"W", 1, Quantity::power},         Unit{"kW", 1e3, Quantity::power},
    Unit{"mW", 1e-3, Quantity::power},     Unit{"J", 1, Quantity::energy},
    Unit{"kJ", 1e3, Quantity::energy},     Unit{"W.h", 3600, Quantity::energy},
    Unit{"kW.h", 3.6e6, Quantity::energy},
};

struct ReadingType {
    std::string_view name;
    std::string_view default_units; // when ReadingUnits is absent
};
constexpr std::array k_reading_types{
    ReadingType{"Power", "W"},
    ReadingType{"EnergyJoules", "J"},
    ReadingType{"EnergyWh", "W.h"},
    ReadingType{"EnergykWh", "kW.h"},
};

const Unit* find_unit(std::string_view name) {
    const auto* it = std::ranges::find(k_units, name, &Unit::name);
    return it == k_units.end() ? nullptr : &*it;
}

bool contains_word(std::string_view text, std::string_view word) {
    std::string lower{text};
    std::ranges::transform(lower, lower.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower.find(word) != std::string::npos;
}

} // namespace

Result<Sample> sensor_reading(const Json& j, const Source& s) {
    if (auto why = unusable_status(j); !why.empty()) {
        return fail(ErrorKind::unsupported, {}, why);
    }
    auto v = reading_value(member(j, "Reading"), "Reading", s.scale);
    if (!v) {
        return std::unexpected(v.error());
    }
    return Sample{*v, string_at(j, "ReadingTime").value_or("")};
}

Result<Source> sensor_source(std::string_view json, const std::string& path) {
    auto j = parse_json(json);
    if (!j) {
        return std::unexpected(j.error());
    }
    const auto type = string_at(*j, "ReadingType").value_or("");
    const auto* rt = std::ranges::find(k_reading_types, std::string_view{type}, &ReadingType::name);
    if (rt == k_reading_types.end()) {
        return fail(
            ErrorKind::unsupported, {},
            fmt::format("ReadingType {} is not power or energy", type.empty() ? "(none)" : type));
    }
    const auto physical = string_at(*j, "PhysicalContext").value_or("Chassis");
    const auto electrical = string_at(*j, "ElectricalContext").value_or("Total");
    if (physical != "Chassis" || electrical != "Total") {
        return fail(ErrorKind::unsupported, {},
                    fmt::format("measures {} ({}), not the chassis' total", physical, electrical));
    }
    const auto units = string_at(*j, "ReadingUnits").value_or(std::string{rt->default_units});
    const Unit* u = find_unit(units);
    const Unit* expected = find_unit(rt->default_units);
    if (u == nullptr || u->quantity != expected->quantity) {
        return fail(ErrorKind::unsupported, {},
                    fmt::format("ReadingUnits {} do not fit ReadingType {}", units, type));
    }
    Source s{path, Field::sensor, u->quantity, u->scale, 0, units, std::nullopt};
    if (auto interval = string_at(*j, "SensingInterval")) {
        s.update_ns = iso8601_duration_ns(*interval);
    }
    if (auto r = read_source(json, s); !r) {
        return std::unexpected(r.error());
    }
    return s;
}

std::vector<std::string> sensor_candidates(const std::vector<std::string>& members,
                                           std::size_t limit) {
    std::vector<std::string> total;
    std::vector<std::string> other;
    for (const auto& m : members) {
        const auto name = last_segment(m);
        if (!contains_word(name, "power") && !contains_word(name, "energy")) {
            continue;
        }
        (contains_word(name, "total") ? total : other).push_back(m);
    }
    total.insert(total.end(), other.begin(), other.end());
    if (total.size() > limit) {
        total.resize(limit);
    }
    return total;
}

} // namespace jp::sensors::redfish
