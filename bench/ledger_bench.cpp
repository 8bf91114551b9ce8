// SPDX-License-Identifier: BSD-3-Clause
// The node's ledger's cost in jouleprofd (daemon/ledger.hpp): opening and closing a session,
// and one job's `ledger` view at its end, with 1, 10 and 100 other jobs on a 64-CPU
// node, each holding 8 CPUs (a cpuset) or all 64 (no cpuset), coming and going through an
// hour-long job's run (each other job's session lasts a minute).
//   jp_bench_ledger
#include "daemon/ledger.hpp"

#include <chrono>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t k_s = 1'000'000'000;

double us_since(Clock::time_point t0, double n) {
    return std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / n;
}

} // namespace

int main() {
    std::printf("%-8s %-10s %14s %14s %12s\n", "others", "holding", "open+close us", "view us",
                "segments");
    for (const int others : {1, 10, 100}) {
        for (const bool all : {false, true}) {
            jp::daemon::Ledger l;
            std::vector<int> every(64);
            std::iota(every.begin(), every.end(), 0);
            l.open("job", "job", {0, 1, 2, 3, 4, 5, 6, 7}, 0);
            // The others come and go over the hour, `others` of them open at any time.
            const int sessions = others * 60;
            const auto t0 = Clock::now();
            for (int i = 0; i < sessions; ++i) {
                const auto opened = static_cast<std::int64_t>(i) * 3600 * k_s / sessions;
                std::vector<int> cpus = every;
                if (!all) {
                    const int first = 8 * (i % 8);
                    cpus.assign(8, 0);
                    std::iota(cpus.begin(), cpus.end(), first);
                }
                const auto id = "s" + std::to_string(i);
                l.open(id, id, std::move(cpus), opened);
                l.close(id, opened + 60 * k_s);
            }
            const double per_session = us_since(t0, sessions);
            constexpr int k_views = 20;
            std::size_t segments = 0;
            const auto t1 = Clock::now();
            for (int v = 0; v < k_views; ++v) {
                const auto view = l.view("job", 0, 3600 * k_s, 3600 * k_s, 1);
                segments = view ? view->segments.size() : 0;
            }
            std::printf("%-8d %-10s %14.2f %14.1f %12zu\n", others, all ? "64 CPUs" : "8 CPUs",
                        per_session, us_since(t1, k_views), segments);
        }
    }
    return 0;
}
