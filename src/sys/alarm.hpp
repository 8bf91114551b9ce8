// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Sleeping until an absolute CLOCK_MONOTONIC deadline, cut short by stop():
// one futex call per sleep and a lock-free check, where a condition variable
// adds a mutex unlock and relock and its own bookkeeping around the same
// kernel wait. The wake-up itself is the largest part of the monitor's cost
// per tick (bench/wake_bench.cpp, docs/overhead.md).
#include <atomic>
#include <cstdint>

namespace jp::sys {

class Alarm {
public:
    // Sleeps until deadline_mono_ns; true when stopped (before or during the
    // sleep), false when the deadline came. INT64_MAX sleeps until stopped.
    bool sleep_until(std::int64_t deadline_mono_ns) noexcept;
    // Wakes every sleeper; every later sleep returns at once until rearm().
    void stop() noexcept;
    void rearm() noexcept { m_word.store(0, std::memory_order_release); }
    [[nodiscard]] bool stopped() const noexcept {
        return m_word.load(std::memory_order_acquire) != 0;
    }

private:
    std::atomic<std::uint32_t> m_word{0};
};

} // namespace jp::sys
