// SPDX-License-Identifier: BSD-3-Clause
// What one periodic wake-up costs the waking thread, with nothing else done:
// the floor under the monitor's CPU per tick at each interval. Three ways to
// sleep until an absolute CLOCK_MONOTONIC deadline: a condition variable's
// wait_until (the sampler before), sys::Alarm (one futex call, the sampler
// now) and clock_nanosleep (no way to be woken early). CPU is the thread's own
// (CLOCK_THREAD_CPUTIME_ID: user + system, the kernel's scheduling of it
// included).
//   jp_bench_wake [SECONDS_PER_CASE]
#include "core/clock.hpp"
#include "sys/alarm.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <mutex>
#include <sys/prctl.h>

namespace {

double thread_cpu_s() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// CPU µs per wake-up of sleep_until(deadline) called every interval_ns.
double per_wake_us(std::int64_t interval_ns,
                   double seconds,
                   const std::function<void(std::int64_t)>& sleep_until) {
    const auto n = static_cast<std::int64_t>(seconds * 1e9 / static_cast<double>(interval_ns));
    std::int64_t next = jp::mono_ns();
    const double cpu0 = thread_cpu_s();
    for (std::int64_t i = 0; i < n; ++i) {
        next += interval_ns;
        sleep_until(next);
    }
    return (thread_cpu_s() - cpu0) * 1e6 / static_cast<double>(n);
}

} // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
    (void)::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL); // as the sampling thread does
    std::mutex mutex;
    std::condition_variable cv;
    jp::sys::Alarm alarm;
    const auto condvar = [&](std::int64_t deadline) {
        std::unique_lock lock{mutex};
        (void)cv.wait_until(
            lock, std::chrono::steady_clock::time_point{std::chrono::nanoseconds{deadline}},
            [] { return false; });
    };
    const auto futex = [&](std::int64_t deadline) { (void)alarm.sleep_until(deadline); };
    const auto nanosleep = [](std::int64_t deadline) { jp::sleep_until_mono(deadline); };
    std::printf("CPU of one periodic wake-up of an otherwise idle thread, µs (%g s per case)\n",
                seconds);
    std::printf("%10s %18s %18s %18s\n", "interval", "condition_variable", "sys::Alarm (futex)",
                "clock_nanosleep");
    for (const std::int64_t ms : {1, 10, 100}) {
        const std::int64_t ns = ms * 1'000'000;
        const double a = per_wake_us(ns, seconds, condvar);
        const double b = per_wake_us(ns, seconds, futex);
        const double c = per_wake_us(ns, seconds, nanosleep);
        std::printf("%8lld ms %18.1f %18.1f %18.1f\n", static_cast<long long>(ms), a, b, c);
    }
}
