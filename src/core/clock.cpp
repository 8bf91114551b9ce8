// SPDX-License-Identifier: BSD-3-Clause
#include "core/clock.hpp"

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <string_view>
#include <sys/resource.h>

namespace jp {
namespace {
std::int64_t read_clock(clockid_t id) noexcept {
    timespec ts{};
    clock_gettime(id, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
} // namespace

std::int64_t mono_ns() noexcept {
    return read_clock(CLOCK_MONOTONIC);
}
std::int64_t wall_ns() noexcept {
    return read_clock(CLOCK_REALTIME);
}

ClockAnchor ClockAnchor::now() noexcept {
    // Bracket the wall reading with two monotonic ones and take the midpoint.
    const auto m1 = mono_ns();
    const auto w = wall_ns();
    const auto m2 = mono_ns();
    return ClockAnchor{m1 + (m2 - m1) / 2, w};
}

void sleep_until_mono(std::int64_t deadline_ns) noexcept {
    timespec ts{};
    ts.tv_sec = deadline_ns / 1'000'000'000;
    ts.tv_nsec = deadline_ns % 1'000'000'000;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
}

double process_cpu_seconds() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string_view format_utc(std::int64_t wall, char (&buf)[32]) noexcept {
    const auto secs = static_cast<time_t>(wall / 1'000'000'000);
    const auto ms = static_cast<int>((wall / 1'000'000) % 1000);
    tm parts{};
    gmtime_r(&secs, &parts);
    const auto n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &parts);
    const auto m = static_cast<std::size_t>(std::snprintf(
        buf + n, sizeof buf - n, ".%03dZ", ms)); // NOLINT(cppcoreguidelines-pro-type-vararg)
    return {buf, n + m};
}

} // namespace jp
