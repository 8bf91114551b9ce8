// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Monotonic time for sampling, plus a wall-clock anchor taken once so that
// any monotonic timestamp can be shown as UTC.
#include <cstdint>
#include <string_view>

namespace jp {

// CLOCK_MONOTONIC in nanoseconds.
[[nodiscard]] std::int64_t mono_ns() noexcept;
// CLOCK_REALTIME in nanoseconds since the Unix epoch.
[[nodiscard]] std::int64_t wall_ns() noexcept;

struct ClockAnchor {
    std::int64_t mono = 0;
    std::int64_t wall = 0;
    [[nodiscard]] static ClockAnchor now() noexcept;
    [[nodiscard]] std::int64_t to_wall(std::int64_t mono_time) const noexcept {
        return wall + (mono_time - mono);
    }
};

// Sleeps until the absolute CLOCK_MONOTONIC time, restarting after signals.
void sleep_until_mono(std::int64_t deadline_ns) noexcept;

// Process CPU time (user + system) of the calling process, in seconds; the
// monitor's own overhead.
[[nodiscard]] double process_cpu_seconds() noexcept;

// ISO-8601 UTC text for a wall time in ns.
[[nodiscard]] std::string_view format_utc(std::int64_t wall_ns, char (&buf)[32]) noexcept;

} // namespace jp
