// SPDX-License-Identifier: BSD-3-Clause
// A fixed CPU-bound job for the kernel sampler's benchmark (bench/kernel_sampling.sh): a fixed
// number of rounds of integer mixing, so that anything that takes the CPU from it (a timer
// interrupt, a sampler thread) shows as a longer run. Prints the run's wall and CPU seconds.
//   jp_bench_spin ROUNDS          runs ROUNDS rounds; prints "WALL CPU CHECKSUM"
//   jp_bench_spin --seconds S     prints how many rounds take about S seconds here
#include "mix.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string_view>

namespace {

constexpr std::uint64_t k_block = 1'000'000; // rounds between clock reads (calibration)

using jp::bench::mix;

double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::string_view{argv[1]} == "--seconds") {
        const double want = std::strtod(argv[2], nullptr);
        if (!(want > 0)) {
            std::fputs("jp_bench_spin: --seconds needs a positive number\n", stderr);
            return 2;
        }
        const auto t0 = std::chrono::steady_clock::now();
        std::uint64_t x = 88172645463325252ULL;
        std::uint64_t rounds = 0;
        while (seconds_since(t0) < want) {
            x = mix(x, k_block);
            rounds += k_block;
        }
        std::printf("%llu\n", static_cast<unsigned long long>(rounds));
        return x == 0 ? 1 : 0; // keeps the loop's result alive
    }
    char* end = nullptr;
    const auto rounds = argc == 2 ? std::strtoull(argv[1], &end, 10) : 0;
    if (rounds == 0 || end == nullptr || *end != '\0') {
        std::fputs("usage: jp_bench_spin ROUNDS | jp_bench_spin --seconds S\n", stderr);
        return 2;
    }
    const double cpu0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t x = mix(88172645463325252ULL, rounds);
    const double wall = seconds_since(t0);
    std::printf("%.6f %.6f %llu\n", wall, cpu_seconds() - cpu0,
                static_cast<unsigned long long>(x % 1000));
    return 0;
}
