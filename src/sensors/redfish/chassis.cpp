// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/redfish/chassis.hpp"

#include "sensors/redfish/sensor_resource.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <ranges>

namespace jp::sensors::redfish {
namespace {

constexpr std::string_view k_root = "/redfish/v1/";
constexpr std::size_t k_max_chassis = 8;

// GET path and read its body with parse (GCC 12's std::expected has no and_then).
template <class Parse>
auto fetch(Connection& c, const std::string& path, Parse parse) -> decltype(parse(std::string{})) {
    auto body = c.get(path);
    if (!body) {
        return std::unexpected(body.error());
    }
    return parse(*body);
}

// A parse error of the resource at path, as one line naming its URL.
Error at(const Connection& c, const std::string& path, Error e) {
    if (e.where.empty()) {
        e.where = c.url(path);
    }
    return e;
}

Error root_error(Error e) {
    if (e.kind == ErrorKind::not_found) {
        e.hint = "set [sensors.redfish] url to the BMC's address alone (https://bmc), without "
                 "/redfish/v1";
    } else if (e.kind == ErrorKind::parse) {
        e.hint = "url answers, but not with Redfish JSON: is it the BMC's Redfish service?";
    }
    return e;
}

Result<std::vector<std::string>> all_members(Connection& c, std::string& collection) {
    auto root = c.get(k_root);
    if (!root) {
        return std::unexpected(root_error(root.error()));
    }
    auto path = chassis_collection(*root);
    if (!path) {
        return std::unexpected(root_error(at(c, std::string{k_root}, path.error())));
    }
    collection = *path;
    auto body = c.get(collection);
    if (!body) {
        return std::unexpected(body.error());
    }
    auto list = members(*body);
    if (!list) {
        return std::unexpected(at(c, collection, list.error()));
    }
    if (list->empty()) {
        return fail(ErrorKind::not_found, c.url(collection), "the Chassis collection is empty",
                    "this BMC publishes no chassis over Redfish: use the ipmi backend");
    }
    return list;
}

// The member whose Id is wanted: by its path first, else by fetching each.
Result<std::string> pick(Connection& c,
                         const std::vector<std::string>& list,
                         const std::string& wanted,
                         const std::string& collection) {
    std::vector<std::string> ids;
    for (const auto& m : list) {
        if (last_segment(m) == wanted) {
            return m;
        }
    }
    for (const auto& m : list | std::views::take(k_max_sensor_fetches)) {
        auto links = fetch(c, m, [](const std::string& b) { return chassis_links(b); });
        const auto id = links ? links->id : std::string{last_segment(m)};
        if (id == wanted) {
            return m;
        }
        ids.push_back(id);
    }
    return fail(ErrorKind::not_found, c.url(collection),
                fmt::format("no chassis with Id \"{}\" (the service has: {})", wanted,
                            fmt::join(ids, ", ")),
                fmt::format("set [sensors.redfish] chassis to one of: {}", fmt::join(ids, ", ")));
}

void from_environment(Connection& c, ChassisReadings& out, std::vector<std::string>& tried) {
    const auto& path = out.links.environment_metrics;
    auto env = fetch(c, path, [&](const std::string& b) { return environment_sources(b, path); });
    if (!env) {
        tried.push_back(at(c, path, env.error()).message());
        return;
    }
    for (const auto& u : env->unusable) {
        tried.push_back(fmt::format("{}: {}", c.url(path), u));
    }
    out.power = env->power;
    out.energy = env->energy;
    if (out.power && !env->power_data_source.empty()) {
        // The Sensor behind PowerWatts says how often the reading changes.
        const auto& uri = env->power_data_source;
        auto s = fetch(c, uri, [&](const std::string& b) { return sensor_source(b, uri); });
        if (s && s->quantity == Quantity::power) {
            out.power->update_ns = s->update_ns;
        }
    }
}

void from_sensors(Connection& c, ChassisReadings& out, std::vector<std::string>& tried) {
    const auto& path = out.links.sensors;
    auto list = fetch(c, path, [](const std::string& b) { return members(b); });
    if (!list) {
        tried.push_back(at(c, path, list.error()).message());
        return;
    }
    const auto candidates = sensor_candidates(*list, k_max_sensor_fetches);
    bool found = false;
    for (const auto& m : candidates) {
        if (out.power && out.energy) {
            break;
        }
        auto body = c.get(m);
        if (!body && body.error().kind == ErrorKind::io) {
            tried.push_back(body.error().message()); // the service stopped answering
            return;
        }
        auto s = body ? sensor_source(*body, m) : std::unexpected(body.error());
        auto& slot = s && s->quantity == Quantity::power ? out.power : out.energy;
        if (s && !slot) {
            slot = std::move(*s);
            found = true;
        }
    }
    if (!found) {
        tried.push_back(fmt::format("{}: no chassis power or energy sensor among {} fetched",
                                    c.url(path), candidates.size()));
    }
}

void from_power(Connection& c, ChassisReadings& out, std::vector<std::string>& tried) {
    const auto& path = out.links.power;
    auto s = fetch(c, path, [&](const std::string& b) { return power_control_source(b, path); });
    if (!s) {
        tried.push_back(at(c, path, s.error()).message());
        return;
    }
    out.power = std::move(*s);
}

} // namespace

Result<std::vector<std::string>> chassis_members(Connection& connection,
                                                 const std::optional<std::string>& wanted) {
    std::string collection;
    auto list = all_members(connection, collection);
    if (!list) {
        return std::unexpected(list.error());
    }
    if (wanted) {
        auto one = pick(connection, *list, *wanted, collection);
        if (!one) {
            return std::unexpected(one.error());
        }
        return std::vector<std::string>{*one};
    }
    if (list->size() > k_max_chassis) {
        list->resize(k_max_chassis);
    }
    return list;
}

Result<ChassisReadings> chassis_readings(Connection& c, const std::string& path) {
    auto links = fetch(c, path, [](const std::string& b) { return chassis_links(b); });
    if (!links) {
        return std::unexpected(at(c, path, links.error()));
    }
    ChassisReadings out{*links, {}, {}, {}};
    std::vector<std::string> tried;
    if (!out.links.environment_metrics.empty()) {
        from_environment(c, out, tried);
    }
    if (!out.links.sensors.empty() && (!out.power || !out.energy)) {
        from_sensors(c, out, tried);
    }
    if (!out.links.power.empty() && !out.power) {
        from_power(c, out, tried);
    }
    if (out.links.environment_metrics.empty() && out.links.sensors.empty() &&
        out.links.power.empty()) {
        tried.emplace_back("it links none of EnvironmentMetrics, Sensors, Power");
    }
    if (!out.power && !out.energy) {
        return fail(ErrorKind::unsupported, c.url(path),
                    fmt::format("no power or energy reading: {}", fmt::join(tried, "; ")),
                    "this BMC's firmware publishes no chassis power over Redfish: use the ipmi "
                    "backend, or update the firmware");
    }
    out.notes = std::move(tried);
    return out;
}

} // namespace jp::sensors::redfish
