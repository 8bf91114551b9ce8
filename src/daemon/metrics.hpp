// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The Prometheus exposition text of /metrics (format 0.0.4): every channel's
// energy counter and power gauge from the floored publications (refreshed no
// faster than the floor, whoever scrapes), the node's energy, sensor health
// and the daemon's own cost. Base units, HELP and TYPE on every metric.
#include "daemon/handlers.hpp"

#include <string>

namespace jp::daemon {

[[nodiscard]] std::string metrics_text(const DaemonState& d, std::int64_t now_ns);

} // namespace jp::daemon
