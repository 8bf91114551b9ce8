// SPDX-License-Identifier: BSD-3-Clause
// sys::Alarm: the sampling threads' sleep. What it promises, not how fast the
// machine is: a sleep that returns false has reached its deadline; stop() ends
// a sleep with a far deadline (the test would hang, not fail, if it did not);
// a stopped alarm returns at once until rearmed.
#include "core/clock.hpp"
#include "sys/alarm.hpp"
#include "sys/thread_name.hpp"

#include <atomic>
#include <climits>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

namespace jp::sys {
namespace {

TEST(Alarm, ReturnsFalseOnceItsDeadlineHasCome) {
    Alarm alarm;
    for (const std::int64_t ahead : {0LL, 1'000'000LL, 20'000'000LL}) {
        const std::int64_t deadline = mono_ns() + ahead;
        EXPECT_FALSE(alarm.sleep_until(deadline));
        EXPECT_GE(mono_ns(), deadline) << ahead;
    }
    EXPECT_FALSE(alarm.sleep_until(mono_ns() - 1'000'000)); // a deadline already past
}

TEST(Alarm, StopEndsASleepAndEveryLaterOneUntilRearmed) {
    Alarm alarm;
    std::atomic<bool> woke{false};
    std::atomic<bool> stopped{false};
    std::thread sleeper{[&] {
        stopped = alarm.sleep_until(mono_ns() + 3'600'000'000'000LL); // an hour
        woke = true;
    }};
    std::thread forever{[&] { EXPECT_TRUE(alarm.sleep_until(INT64_MAX)); }};
    alarm.stop();
    sleeper.join();
    forever.join();
    EXPECT_TRUE(woke);
    EXPECT_TRUE(stopped);
    EXPECT_TRUE(alarm.stopped());
    EXPECT_TRUE(alarm.sleep_until(mono_ns() + 3'600'000'000'000LL)); // at once
    alarm.rearm();
    EXPECT_FALSE(alarm.stopped());
    EXPECT_FALSE(alarm.sleep_until(mono_ns() + 1'000'000));
}

TEST(ThreadName, IsWhatTheKernelShowsCutTo15Bytes) {
    std::string seen;
    std::thread t{[&] {
        name_this_thread("jp-a-rather-long-backend-name");
        const auto tid = static_cast<long>(::syscall(SYS_gettid));
        std::ifstream comm{"/proc/self/task/" + std::to_string(tid) + "/comm"};
        std::getline(comm, seen);
    }};
    t.join();
    EXPECT_EQ(seen, "jp-a-rather-lon");
}

} // namespace
} // namespace jp::sys
