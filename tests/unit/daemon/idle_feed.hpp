// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the idle learner's tests feed it (idle_test.cpp, idle_use_test.cpp): 1 s periods, and
// an energy counter read every 100 ms.
#include "daemon/idle.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace jp::daemon::idle_feed {

inline constexpr std::int64_t k_ms = 1'000'000;

inline IdleSettings fast() {
    IdleSettings s;
    s.period = std::chrono::seconds{1};
    s.window = std::chrono::seconds{100};
    s.min_history = std::chrono::seconds{20};
    s.percentile = 5;
    return s;
}

// Feeds an energy counter read every 100 ms for `seconds`, drawing watts(second).
template <class F>
std::int64_t
feed(IdleLearner& l, std::size_t ch, std::int64_t t, double& joules, int seconds, F watts) {
    for (int tick = 0; tick < seconds * 10; ++tick) {
        joules += watts(tick / 10) * 0.1;
        t += 100 * k_ms;
        l.add(ch, t, joules);
    }
    return t;
}

} // namespace jp::daemon::idle_feed
