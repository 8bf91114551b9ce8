// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/jouleprofd/offer.hpp"

#include "daemon_client/json_field.hpp"
#include "trace/time_range.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <optional>

namespace jp::sensors::jouleprofd {
namespace {

bool covered(const Channel& c, const std::vector<Channel>& local) {
    const bool util = c.quantity == Quantity::utilization;
    return std::ranges::any_of(local, [&](const Channel& l) {
        if ((l.quantity == Quantity::utilization) != util) {
            return false;
        }
        if (!c.device.empty()) {
            return l.device == c.device;
        }
        return l.counted && l.device.empty() && l.domain == c.domain;
    });
}

std::optional<double> watts(const nlohmann::json& j, const char* key) {
    const auto v = j.find(key);
    if (v == j.end() || !v->is_number()) {
        return std::nullopt;
    }
    const auto w = v->get<double>();
    return std::isfinite(w) && w > 0 ? std::optional{w} : std::nullopt;
}

std::optional<std::int64_t> period(const nlohmann::json& j, const char* key) {
    const auto ns = daemon::integer_field(j, key, 0, 1, trace::k_max_time_ns);
    return ns && *ns > 0 ? ns : std::nullopt; // absent (0) or out of range: not known
}

} // namespace

Offer offered(const nlohmann::json& list, const std::vector<Channel>& local) {
    Offer out;
    if (!list.is_array()) {
        return out;
    }
    for (const auto& j : list) {
        Channel c;
        c.name = j.at("name").get<std::string>();
        c.domain = domain_from_string(j.at("domain").get<std::string>()).value_or(Domain::other);
        c.quantity =
            quantity_from_string(j.at("quantity").get<std::string>()).value_or(Quantity::power);
        c.provenance = provenance_from_string(j.at("provenance").get<std::string>())
                           .value_or(Provenance::measured);
        c.device = j.value("device", "");
        c.counted = j.value("counted", true);
        c.parent = j.value("parent", "");
        c.profile_of = j.value("profile_of", "");
        c.limit_watts = watts(j, "limit_watts");
        c.max_watts = watts(j, "max_watts");
        c.update_ns = period(j, "update_ns");
        c.averaging_ns = period(j, "averaging_ns");
        if (covered(c, local)) {
            continue;
        }
        c.backend = "jouleprofd";
        c.mean_since_previous = is_mean_since_previous(c); // as the trace reader has it
        const auto index = daemon::integer_in(j.at("index"), 0, std::numeric_limits<int>::max());
        if (!index) {
            continue; // no channel of ours can name it
        }
        const auto resolution =
            daemon::integer_field(j, "resolution_ms", 0, 0, std::numeric_limits<int>::max());
        c.source = fmt::format("{} {} via jouleprofd, {} ms resolution", j.value("backend", ""),
                               j.value("source", ""), resolution.value_or(0));
        out.channels.push_back(std::move(c));
        out.index.push_back(static_cast<int>(*index));
    }
    return out;
}

} // namespace jp::sensors::jouleprofd
