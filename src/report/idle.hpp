// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Idle accelerators: a GPU present on the node but left unused by the job still
// draws power. A GPU is named idle only when its utilisation was measured (a
// "<name>.util" channel) and averaged at or below the threshold over the run.
#include "report/summary.hpp"

#include <vector>

namespace jp::report {

// The counted GPU parts of a run whose mean utilisation is <= max_util_percent,
// with their energy and share of the node's energy.
[[nodiscard]] std::vector<IdleDevice> idle_devices(const Figures& run, double max_util_percent);

} // namespace jp::report
