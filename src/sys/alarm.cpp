// SPDX-License-Identifier: BSD-3-Clause
#include "sys/alarm.hpp"

#include "core/clock.hpp"

#include <cerrno>
#include <climits>
#include <ctime>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace jp::sys {
namespace {
// The futex word must be a plain 32-bit integer in memory: std::atomic of one
// has the same size and no lock (checked here).
static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);

std::uint32_t* word_of(std::atomic<std::uint32_t>& a) noexcept {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast)
    return reinterpret_cast<std::uint32_t*>(&a);
}
} // namespace

bool Alarm::sleep_until(std::int64_t deadline_mono_ns) noexcept {
    timespec ts{};
    ts.tv_sec = deadline_mono_ns / 1'000'000'000;
    ts.tv_nsec = deadline_mono_ns % 1'000'000'000;
    const timespec* timeout = deadline_mono_ns == INT64_MAX ? nullptr : &ts;
    while (!stopped()) {
        // FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time and sleeps
        // only while the word is still 0, so a stop() between the check above
        // and the call is never missed.
        const long r = ::syscall(SYS_futex, word_of(m_word), FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG,
                                 0U, timeout, nullptr, FUTEX_BITSET_MATCH_ANY);
        if (r != 0 && errno == ETIMEDOUT) {
            return stopped();
        }
        // 0 (woken), EAGAIN (stopped meanwhile) or EINTR (a signal): look again,
        // unless the deadline has passed.
        if (timeout != nullptr && !stopped() && mono_ns() >= deadline_mono_ns) {
            return false;
        }
    }
    return true;
}

void Alarm::stop() noexcept {
    m_word.store(1, std::memory_order_release);
    ::syscall(SYS_futex, word_of(m_word), FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, nullptr,
              nullptr, 0);
}

} // namespace jp::sys
