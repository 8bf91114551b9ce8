// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Safe access to untrusted Redfish JSON (nlohmann::json without exceptions):
// every look-up checks the type, so no malformed answer throws or aborts.
#include "core/error.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace jp::sensors::redfish {

using Json = nlohmann::json;

// The parsed document; ErrorKind::parse with the text's start (one safe line)
// when it is not JSON or not an object.
[[nodiscard]] Result<Json> parse_json(std::string_view text);

// j[key] when j is an object that has it, else nullptr.
[[nodiscard]] const Json* member(const Json& j, std::string_view key);
// v as a finite number, when it is one.
[[nodiscard]] std::optional<double> number(const Json* v);
// j[key] when it is a string.
[[nodiscard]] std::optional<std::string> string_at(const Json& j, std::string_view key);
// A reading's value: a finite number, not negative (power, energy counters).
// Fails with ErrorKind::parse (absent: "no WHAT", not a number) or unsupported
// (null: no reading now; negative), the detail naming `what`.
// With scale (to W or J) applied, which must leave it finite.
[[nodiscard]] Result<double> reading_value(const Json* v, std::string_view what, double scale = 1);
// j[key]["@odata.id"]: a link to another resource.
[[nodiscard]] std::optional<std::string> odata_id(const Json& j, std::string_view key);
// Why j's Status makes its reading unusable ("Status.State is Disabled",
// "Status.Health is Critical"); empty when usable or when it has no Status.
[[nodiscard]] std::string unusable_status(const Json& j);

// An ISO 8601 duration as Redfish writes them ("PT0.25S", "PT1M30S", "P1DT2H"),
// in nanoseconds; nullopt when malformed, negative or longer than a year.
[[nodiscard]] std::optional<std::int64_t> iso8601_duration_ns(std::string_view text);

} // namespace jp::sensors::redfish
