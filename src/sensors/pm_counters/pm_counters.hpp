// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// HPE Cray EX/XC node telemetry in /sys/cray/pm_counters: node, CPU, memory
// and per-accelerator energy counters in J, updated by the blade controller at
// about 10 Hz, readable by every user.
#include "sensors/sensor.hpp"

#include <cstdint>
#include <expected>
#include <optional>
#include <string_view>

namespace jp::sensors::pm_counters {

// One line of a counter file: "<uint> J <uint> us\n" (energy), "<uint> W <uint> us\n"
// (power), or "<uint> W\n" (caps).
struct CounterLine {
    std::uint64_t value = 0;                   // in the file's unit (J or W)
    std::optional<std::uint64_t> timestamp_us; // HSS timestamp; same for every file of one scan
};

// Parses text whose unit must be `unit` ("J" or "W"); EINVAL when malformed.
[[nodiscard]] std::expected<CounterLine, int> parse_counter(std::string_view text,
                                                            std::string_view unit) noexcept;

// `freshness` (≈10 Hz scan counter) and `generation` (bumped when a cap changes),
// read before and after the counters: equal stamps mean one coherent scan.
struct ScanStamp {
    std::uint64_t freshness = 0;
    std::uint64_t generation = 0;
    friend bool operator==(const ScanStamp&, const ScanStamp&) = default;
};

// Runs inside read(), after the counters and before freshness is read again.
// Tests use it to land a scan mid-read; it must not throw.
struct ReadHook {
    void (*run)(void* context) noexcept = nullptr;
    void* context = nullptr;
};

// Finds this backend's devices under host; never throws. An absent directory
// is a note (not a Cray node); unreadable files are Findings.
[[nodiscard]] Discovery discover(const Host& host);
[[nodiscard]] Discovery discover(const Host& host, ReadHook hook);

} // namespace jp::sensors::pm_counters
