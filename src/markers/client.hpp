// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The job's side of the marker protocol, shared by `jouleprof mark` and
// libjouleprof.so. Allocation-free and noexcept: safe behind a C ABI.
#include "markers/protocol.hpp"

#include <cstdint>
#include <string_view>

namespace jp::markers {

// Codes returned by the client (and the C API).
inline constexpr int k_sent = 0;
inline constexpr int k_inactive = 1; // not under `jouleprof run`: nothing done

// How long a send may wait when the monitor's queue is full.
inline constexpr int k_send_timeout_ms = 2000;

// True when JOULEPROF_MARKER_SOCKET is set (the job runs under jouleprof).
[[nodiscard]] bool active() noexcept;

// Stamps CLOCK_MONOTONIC now and sends the marker to the monitor named by
// JOULEPROF_MARKER_SOCKET. Returns k_sent, k_inactive, or a negative errno:
// -EINVAL / -ENAMETOOLONG for a bad name, or the socket's error (e.g.
// -ECONNREFUSED when the monitor is gone, -EAGAIN after k_send_timeout_ms).
[[nodiscard]] int send_mark(Kind kind, std::string_view name) noexcept;

// The same to an explicit socket with an explicit timestamp (for tests).
[[nodiscard]] int send_mark_to(const char* socket_path,
                               Kind kind,
                               std::string_view name,
                               std::int64_t t_mono_ns) noexcept;

} // namespace jp::markers
