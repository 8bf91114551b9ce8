// SPDX-License-Identifier: BSD-3-Clause
// The idle learner's cost in jouleprofd (daemon/idle.hpp): what one period's close costs a
// channel (its idle power learned again from every period kept, quiet ones and the line
// through them) at the default window (1,440 one-minute periods) and at the most a window
// may hold (100,000), for a node that is busy (the line) and one quiet at times; and one
// reading of a large node's /proc/stat (2,048 CPUs, the daemon's CPU use once a second).
//   jp_bench_idle
#include "attrib/node_cpu.hpp"
#include "daemon/idle.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t k_s = 1'000'000'000;

double us_since(Clock::time_point t0, double n) {
    return std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / n;
}

// Feeds `periods` one-second periods (two readings each) and returns µs per period closed,
// over the last `timed` of them (the window full).
double per_period(std::size_t capacity, bool quiet_at_times, int timed) {
    jp::daemon::IdleSettings s;
    s.period = std::chrono::seconds{1};
    s.window = std::chrono::seconds{static_cast<std::int64_t>(capacity)};
    s.min_history = std::chrono::seconds{60};
    jp::daemon::IdleLearner l({jp::Quantity::energy}, s);
    double j = 0;
    double busy = 0;
    std::int64_t t = 0;
    l.add_busy(t, busy, 64);
    l.add(0, t, j);
    const auto step = [&](std::int64_t k) {
        const double use = quiet_at_times && k % 40 == 0 ? 0.02 : 0.5 + 0.4 * double(k % 7) / 6;
        j += 100 + 200 * use;
        busy += use * 64;
        t += k_s;
        l.add_busy(t, busy, 64);
        l.add(0, t, j);
    };
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(capacity); ++k) {
        step(k);
    }
    const auto t0 = Clock::now();
    for (int k = 0; k < timed; ++k) {
        step(static_cast<std::int64_t>(capacity) + k);
    }
    return us_since(t0, timed);
}

} // namespace

int main() {
    std::printf("%-10s %-16s %18s\n", "periods", "node", "us per period");
    for (const std::size_t n : {std::size_t{1440}, std::size_t{100'000}}) {
        for (const bool quiet : {false, true}) {
            std::printf("%-10zu %-16s %18.1f\n", n, quiet ? "quiet at times" : "always busy",
                        per_period(n, quiet, n > 10'000 ? 50 : 2'000));
        }
    }
    const auto dir =
        std::filesystem::temp_directory_path() / ("jp_bench_idle." + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / "proc");
    {
        std::ofstream stat{dir / "proc" / "stat"};
        stat << "cpu  1 2 3 4 5 6 7 8 0 0\n";
        for (int cpu = 0; cpu < 2048; ++cpu) {
            stat << "cpu" << cpu << " 123456 789 23456 987654321 1234 0 567 0 0 0\n";
        }
        stat << "intr 0\nctxt 0\nbtime 0\n";
    }
    const auto node = jp::attrib::NodeCpu::open(dir);
    if (node) {
        constexpr int k_reads = 2'000;
        (void)node->read(); // the buffer grown once
        const auto t0 = Clock::now();
        for (int i = 0; i < k_reads; ++i) {
            (void)node->read();
        }
        std::printf("/proc/stat of 2048 CPUs (%ju bytes): %.1f us a read\n",
                    static_cast<std::uintmax_t>(std::filesystem::file_size(dir / "proc" / "stat")),
                    us_since(t0, k_reads));
    }
    std::filesystem::remove_all(dir);
    return 0;
}
