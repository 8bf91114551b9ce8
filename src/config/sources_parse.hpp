// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// [sensors.ipmi], [sensors.redfish] and [sensors.slurm]: the keys beyond
// interval/enabled, checked as config.cpp checks the rest.
#include "config/config.hpp"
#include "config/toml_scope.hpp"

#include <span>
#include <string_view>

namespace jp {

// The keys [sensors.NAME] may hold besides interval and enabled; empty for other backends.
[[nodiscard]] std::span<const std::string_view> source_keys(std::string_view backend) noexcept;
// Fills out.ipmi / out.redfish / out.slurm from their table (a no-op for other backends).
[[nodiscard]] Result<void> parse_source(const TomlScope& s, std::string_view backend, Config& out);

} // namespace jp
