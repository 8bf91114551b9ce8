// SPDX-License-Identifier: BSD-3-Clause
#pragma once
#include "sensors/sensor.hpp"

#include <vector>

namespace jp::sensors::jouleprofd {

// Connects to jouleprofd (Host::daemon_socket, $JOULEPROF_SOCKET or the
// default path), opens a job session and offers the daemon's channels that
// no channel in local (this user's own, readable ones) already covers.
// No daemon is not an error: a note says so.
[[nodiscard]] Discovery discover(const Host& host, const std::vector<Channel>& local);

} // namespace jp::sensors::jouleprofd
