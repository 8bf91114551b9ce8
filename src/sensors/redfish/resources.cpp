// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/redfish/resources.hpp"

#include "sensors/redfish/json.hpp"
#include "sensors/redfish/sensor_resource.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace jp::sensors::redfish {
namespace {

// The excerpts of EnvironmentMetrics that hold a chassis' power or energy.
struct Excerpt {
    Field field;
    std::string_view property;
    Quantity quantity;
    double scale;
    std::string_view units;
};
constexpr std::array k_excerpts{
    Excerpt{Field::power_watts, "PowerWatts", Quantity::power, 1, "W"},
    Excerpt{Field::energy_joules, "EnergyJoules", Quantity::energy, 1, "J"},
    Excerpt{Field::energy_kwh, "EnergykWh", Quantity::energy, 3.6e6, "kW.h"},
};

const Excerpt* find_excerpt(Field f) {
    const auto* it = std::ranges::find(k_excerpts, f, &Excerpt::field);
    return it == k_excerpts.end() ? nullptr : &*it;
}

// The value of an excerpt such as EnvironmentMetrics' PowerWatts: {"Reading": 374, ...}.
Result<Sample> excerpt_reading(const Json& j, std::string_view property, double scale) {
    const Json* excerpt = member(j, property);
    if (excerpt == nullptr) {
        return fail(ErrorKind::parse, {}, fmt::format("no {}", property));
    }
    auto v = reading_value(member(*excerpt, "Reading"), fmt::format("{}.Reading", property), scale);
    if (!v) {
        return std::unexpected(v.error());
    }
    return Sample{*v, {}};
}

Result<Sample> power_control_reading(const Json& j, std::size_t index) {
    const Json* list = member(j, "PowerControl");
    if (list == nullptr || !list->is_array() || index >= list->size()) {
        return fail(ErrorKind::parse, {}, fmt::format("no PowerControl[{}]", index));
    }
    const Json& entry = (*list)[index];
    if (auto why = unusable_status(entry); !why.empty()) {
        return fail(ErrorKind::unsupported, {}, fmt::format("PowerControl[{}]: {}", index, why));
    }
    auto v = reading_value(member(entry, "PowerConsumedWatts"),
                           fmt::format("PowerControl[{}].PowerConsumedWatts", index));
    if (!v) {
        return std::unexpected(v.error());
    }
    return Sample{*v, {}};
}

} // namespace

std::string_view last_segment(std::string_view path) {
    while (path.ends_with('/')) {
        path.remove_suffix(1);
    }
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string label(const Source& s) {
    if (const auto* e = find_excerpt(s.field)) {
        return std::string{e->property};
    }
    if (s.field == Field::sensor) {
        return fmt::format("Reading ({})", s.units);
    }
    return fmt::format("PowerControl[{}].PowerConsumedWatts", s.index);
}

Result<Sample> read_source(std::string_view json, const Source& s) {
    auto j = parse_json(json);
    if (!j) {
        return std::unexpected(j.error());
    }
    if (const auto* e = find_excerpt(s.field)) {
        return excerpt_reading(*j, e->property, e->scale);
    }
    if (s.field == Field::sensor) {
        return sensor_reading(*j, s);
    }
    return power_control_reading(*j, s.index);
}

Result<std::string> chassis_collection(std::string_view root_json) {
    auto j = parse_json(root_json);
    if (!j) {
        return std::unexpected(j.error());
    }
    auto link = odata_id(*j, "Chassis");
    if (!link) {
        return fail(ErrorKind::not_found, {}, "the service root links no Chassis collection");
    }
    return *link;
}

Result<std::vector<std::string>> members(std::string_view collection_json) {
    auto j = parse_json(collection_json);
    if (!j) {
        return std::unexpected(j.error());
    }
    const Json* list = member(*j, "Members");
    if (list == nullptr || !list->is_array()) {
        return fail(ErrorKind::parse, {}, "no Members array (not a Redfish collection)");
    }
    std::vector<std::string> out;
    for (const auto& m : *list) {
        if (auto id = string_at(m, "@odata.id")) {
            out.push_back(std::move(*id));
        }
    }
    return out;
}

Result<ChassisLinks> chassis_links(std::string_view chassis_json) {
    auto j = parse_json(chassis_json);
    if (!j) {
        return std::unexpected(j.error());
    }
    ChassisLinks out;
    out.id = string_at(*j, "Id").value_or("");
    out.name = string_at(*j, "Name").value_or("");
    out.environment_metrics = odata_id(*j, "EnvironmentMetrics").value_or("");
    out.sensors = odata_id(*j, "Sensors").value_or("");
    out.power = odata_id(*j, "Power").value_or("");
    return out;
}

Result<EnvironmentSources> environment_sources(std::string_view json, const std::string& path) {
    auto j = parse_json(json);
    if (!j) {
        return std::unexpected(j.error());
    }
    EnvironmentSources out;
    for (const auto& e : k_excerpts) {
        auto& into = e.quantity == Quantity::power ? out.power : out.energy;
        if (into || member(*j, e.property) == nullptr) {
            continue;
        }
        Source s{path, e.field, e.quantity, e.scale, 0, std::string{e.units}, std::nullopt};
        if (auto r = excerpt_reading(*j, e.property, e.scale); !r) {
            out.unusable.push_back(r.error().detail);
            continue;
        }
        into = std::move(s);
    }
    if (const Json* pw = member(*j, "PowerWatts")) {
        out.power_data_source = string_at(*pw, "DataSourceUri").value_or("");
    }
    return out;
}

Result<Source> power_control_source(std::string_view json, const std::string& path) {
    auto j = parse_json(json);
    if (!j) {
        return std::unexpected(j.error());
    }
    const Json* list = member(*j, "PowerControl");
    if (list == nullptr || !list->is_array() || list->empty()) {
        return fail(ErrorKind::not_found, {}, "no PowerControl entry");
    }
    std::string first_reason;
    for (std::size_t i = 0; i < list->size(); ++i) {
        Source s{path, Field::power_control, Quantity::power, 1, i, "W", std::nullopt};
        auto r = power_control_reading(*j, i);
        if (r) {
            return s;
        }
        if (first_reason.empty()) {
            first_reason = r.error().detail;
        }
    }
    return fail(ErrorKind::unsupported, {}, first_reason);
}

} // namespace jp::sensors::redfish
