// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The fixed CPU-bound work of the job benchmarks (jp_bench_spin, jp_bench_tick_slowdown):
// rounds of integer mixing, no memory traffic, so that only what takes the CPU from it (a
// timer interrupt, another thread) changes how long a round takes.
#include <cstdint>

namespace jp::bench {

inline std::uint64_t mix(std::uint64_t x, std::uint64_t rounds) {
    for (std::uint64_t i = 0; i < rounds; ++i) {
        x ^= x << 13U;
        x ^= x >> 7U;
        x ^= x << 17U;
        x += i;
    }
    return x;
}

} // namespace jp::bench
