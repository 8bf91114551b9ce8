// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The node's power over a group's runs: the highest peak (and where the sensors' bounds put
// it), the runs' percentiles as mean ± std.
#include "report/summary.hpp"

#include <optional>
#include <vector>

namespace jp::report {

// Absent where no run has a power series.
[[nodiscard]] std::optional<PowerStats> power_stats(const std::vector<RunSummary>& runs);

} // namespace jp::report
