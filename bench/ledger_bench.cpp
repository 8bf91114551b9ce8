// SPDX-License-Identifier: BSD-3-Clause
// The node's ledger's cost in jouleprofd (daemon/ledger.hpp): opening and closing a session,
// and one job's `ledger` view at its end, with 1, 10 and 100 other jobs on a 64-CPU
// node, each holding 8 CPUs (a cpuset) or all 64 (no cpuset), coming and going through an
// hour-long job's run (each other job's session lasts a minute); and one user's churn past
// the bound on ended jobs, which then forgets that user's own.
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
            l.open("job", "job", 999, {0, 1, 2, 3, 4, 5, 6, 7}, 0);
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
                l.open(id, id, 1000 + static_cast<unsigned>(i % 7), std::move(cpus), opened);
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
    // One user's churn past the ledger's bound beside 7 other users' ended jobs: each close
    // then forgets the churner's oldest (the user holding the most is found each time).
    jp::daemon::Ledger l;
    l.open("job", "job", 999, {0}, 0);
    for (int i = 0; i < 7 * 100; ++i) {
        const auto id = "u" + std::to_string(i);
        l.open(id, id, 1000 + static_cast<unsigned>(i % 7), {1}, i);
        l.close(id, i + 1);
    }
    const auto churn = static_cast<int>(jp::daemon::Ledger::k_max_closed) + 100'000;
    const auto t0 = Clock::now();
    for (int i = 0; i < churn; ++i) {
        const auto id = "c" + std::to_string(i);
        l.open(id, id, 2000, {2}, 1'000 + i);
        l.close(id, 1'001 + i);
    }
    std::printf("churn past the bound: %.2f us per open+close, %zu kept, %zu of them others'\n",
                us_since(t0, churn), l.closed_count(), l.closed_count() - l.closed_count(2000));
    return 0;
}
