// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/redfish/json.hpp"

#include "core/text.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace jp::sensors::redfish {

Result<Json> parse_json(std::string_view text) {
    Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
        return fail(ErrorKind::parse, {},
                    text.empty() ? std::string{"empty answer where JSON was expected"}
                                 : fmt::format("not JSON (it starts \"{}\")", one_line(text, 40)));
    }
    if (!j.is_object()) {
        return fail(ErrorKind::parse, {}, "JSON but not an object (not a Redfish resource)");
    }
    return j;
}

const Json* member(const Json& j, std::string_view key) {
    if (!j.is_object()) {
        return nullptr;
    }
    const auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
}

std::optional<double> number(const Json* v) {
    if (v == nullptr || !v->is_number()) {
        return std::nullopt;
    }
    const auto d = v->get<double>();
    return std::isfinite(d) ? std::optional{d} : std::nullopt;
}

Result<double> reading_value(const Json* v, std::string_view what, double scale) {
    if (v == nullptr) {
        return fail(ErrorKind::parse, {}, fmt::format("no {}", what));
    }
    if (v->is_null()) {
        return fail(ErrorKind::unsupported, {}, fmt::format("{} is null (no reading)", what));
    }
    const auto d = number(v);
    if (!d) {
        return fail(ErrorKind::parse, {}, fmt::format("{} is not a number", what));
    }
    if (*d < 0) {
        return fail(ErrorKind::unsupported, {}, fmt::format("{} is negative ({})", what, *d));
    }
    if (!std::isfinite(*d * scale)) {
        return fail(ErrorKind::unsupported, {}, fmt::format("{} is out of range ({})", what, *d));
    }
    return *d * scale;
}

std::optional<std::string> string_at(const Json& j, std::string_view key) {
    const Json* v = member(j, key);
    if (v == nullptr || !v->is_string()) {
        return std::nullopt;
    }
    return v->get<std::string>();
}

std::optional<std::string> odata_id(const Json& j, std::string_view key) {
    const Json* v = member(j, key);
    return v == nullptr ? std::nullopt : string_at(*v, "@odata.id");
}

std::string unusable_status(const Json& j) {
    const Json* status = member(j, "Status");
    if (status == nullptr) {
        return {};
    }
    if (auto state = string_at(*status, "State"); state && *state != "Enabled") {
        return fmt::format("Status.State is {}", one_line(*state, 40));
    }
    if (auto health = string_at(*status, "Health"); health && *health == "Critical") {
        return "Status.Health is Critical";
    }
    return {};
}

std::optional<std::int64_t> iso8601_duration_ns(std::string_view text) {
    if (!text.starts_with('P') || text.size() < 3) {
        return std::nullopt;
    }
    text.remove_prefix(1);
    double seconds = 0;
    bool in_time = false;
    bool any = false;
    while (!text.empty()) {
        if (text.front() == 'T' && !in_time) {
            in_time = true;
            text.remove_prefix(1);
            continue;
        }
        double n = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
        if (ec != std::errc{} || end == text.data() + text.size() || !(n >= 0)) {
            return std::nullopt;
        }
        const char unit = *end;
        text.remove_prefix(static_cast<std::size_t>(end - text.data()) + 1);
        if (!in_time && unit == 'D') {
            seconds += n * 86400;
        } else if (in_time && (unit == 'H' || unit == 'M' || unit == 'S')) {
            seconds += n * (unit == 'H' ? 3600 : unit == 'M' ? 60 : 1);
        } else {
            return std::nullopt;
        }
        any = true;
    }
    if (!any || !(seconds <= 366.0 * 86400)) {
        return std::nullopt;
    }
    return static_cast<std::int64_t>(std::llround(seconds * 1e9));
}

} // namespace jp::sensors::redfish
