// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a run's usage facts (JSON, written by attrib::Tracker) say the job was given,
// read strictly: a crafted trace gets nullopt, never a float-to-int conversion out of
// range nor an allocation without bound.
#include "attrib/allocation.hpp"

#include <nlohmann/json_fwd.hpp>
#include <optional>

namespace jp::report {

[[nodiscard]] std::optional<attrib::Allocation> allocation_from(const nlohmann::json& j);

} // namespace jp::report
