// SPDX-License-Identifier: BSD-3-Clause
// The monitor's own CPU cost at 2 Hz, 100 Hz and 1 kHz: the real sampler and
// trace writer over a fake powercap tree (a two-socket server: package, core
// and dram zones per socket), measured as process CPU time over wall time.
//   jp_bench_overhead [SECONDS_PER_RATE [INTERVAL_MS...]]
#include "cli/recorder.hpp"
#include "core/clock.hpp"
#include "fake_node.hpp"
#include "monitor_fixture.hpp"
#include "sensors/registry.hpp"
#include "trace/writer.hpp"

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <numeric>

namespace {

void measure(const std::filesystem::path& root, jp::Nanos interval, double seconds) {
    jp::bench::Monitor monitor{root, interval};
    auto& sampler = monitor.sampler();
    const double cpu0 = jp::process_cpu_seconds();
    const auto t0 = jp::mono_ns();
    monitor.begin();
    const auto threads0 = jp::bench::thread_cpu();
    jp::sleep_until_mono(t0 + static_cast<std::int64_t>(seconds * 1e9));
    auto threads = jp::bench::thread_cpu();
    monitor.end();
    const double wall = static_cast<double>(jp::mono_ns() - t0) * 1e-9;
    const double cpu = jp::process_cpu_seconds() - cpu0;
    const double hz = 1e9 / static_cast<double>(interval.count());
    const auto& late = sampler.lateness();
    auto us = [&](double q) { return static_cast<double>(late.quantile(q).value_or(0)) * 1e-3; };
    std::printf("%8.0f Hz  %zu channels  %6.3f s CPU over %5.1f s wall  = %6.3f %% of one core"
                "  (%.1f us per sampling tick; %llu missed deadlines of %llu; late p50 %.0f us,"
                " p99 %.0f us, p99.9 %.0f us)\n",
                hz, monitor.channels(), cpu, wall, 100 * cpu / wall, 1e6 * cpu / (hz * wall),
                static_cast<unsigned long long>(sampler.missed_deadlines()),
                static_cast<unsigned long long>(late.count() + sampler.missed_deadlines()), us(0.5),
                us(0.99), us(0.999));
    // The split inside the job (the edges and the last flush left out): the
    // sampling thread per tick, the trace writer per second.
    for (auto& [name, cpu_s] : threads) {
        cpu_s -= threads0.contains(name) ? threads0.at(name) : 0;
    }
    std::printf("%8s    split: jp-sample %.1f us per tick, jp-trace %.0f us per second, rest "
                "%.0f us per second\n",
                "", 1e6 * threads["jp-sample"] / (hz * seconds),
                1e6 * threads["jp-trace"] / seconds,
                1e6 *
                    (std::accumulate(threads.begin(), threads.end(), 0.0,
                                     [](double a, const auto& kv) { return a + kv.second; }) -
                     threads["jp-sample"] - threads["jp-trace"]) /
                    seconds);
}

} // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 10.0;
    const auto root = jp::bench::fake_server("overhead");
    std::printf("jouleprof monitor overhead: sampler + SQLite trace writer, %g s per rate\n",
                seconds);
    std::vector<std::int64_t> intervals_ns{500'000'000, 10'000'000, 1'000'000};
    if (argc > 2) { // intervals in ms instead of the three defaults
        intervals_ns.clear();
        for (int i = 2; i < argc; ++i) {
            intervals_ns.push_back(static_cast<std::int64_t>(std::atof(argv[i]) * 1e6));
        }
    }
    for (const auto ns : intervals_ns) {
        measure(root, jp::Nanos{ns}, seconds);
    }
    std::filesystem::remove_all(root);
}
