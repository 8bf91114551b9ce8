// SPDX-License-Identifier: BSD-3-Clause
// The timer sampler's CPU per tick against the floor under it, in the same process and
// interleaved (issue 31: within 1.5x of a bare wake-up at 10 ms and at 1 ms). Each round, at
// each interval, measures for SECONDS:
//   floor    a thread that sleeps to absolute deadlines on sys::Alarm and does nothing else
//            (jp_bench_wake's futex case, with the sampling thread's timer slack);
//   reads    the same thread reading the same counters as the sampler at each wake-up, and
//            nothing else (one pread each, as sys::PolledFile reads them): what the kernel
//            charges for the reads themselves, which no sampler can avoid;
//   sampler  the real sampler and trace writer on a fake two-socket powercap tree (6 counters),
//            as jp_bench_overhead runs them; and its sampling thread's part alone (the rest
//            is the trace writer's commits and the process's other threads).
// Each as the whole process's CPU over the window (every thread: the trace writer's commits
// and any other wake-ups count) divided by the ticks in it. Rotating the three ways' order,
// round after round, puts this VM's drift into all alike; the medians and the ratios of each
// round's figures are printed. Intervals from 1 ms (the sampler's shortest).
//   jp_bench_timer_floor [SECONDS [ROUNDS [INTERVAL_MS...]]]
// The tree is written under $TMPDIR (default /tmp); JP_BENCH_FILES=DIR reads the counters from
// DIR's files instead for the reads column (e.g. real sysfs attributes: the sampler still reads
// the fake tree).
#include "fake_node.hpp"
#include "monitor_fixture.hpp"
#include "sys/alarm.hpp"
#include "sys/file.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sys/prctl.h>
#include <thread>
#include <vector>

namespace {

// Process CPU, µs, per tick of `interval_ns` over `seconds` between start() and stop(); with
// `sampling`, the jp-sample thread's own part of it too.
template <class Start, class Stop>
double cpu_per_tick_us(
    std::int64_t interval_ns, double seconds, Start start, Stop stop, double* sampling = nullptr) {
    start();
    // The threads' snapshot (a walk of /proc/self/task) is outside the process's window.
    const double thread0 = sampling != nullptr ? jp::bench::thread_cpu()["jp-sample"] : 0;
    const double cpu0 = jp::process_cpu_seconds();
    const auto t0 = jp::mono_ns();
    jp::sleep_until_mono(t0 + static_cast<std::int64_t>(seconds * 1e9));
    const double cpu = jp::process_cpu_seconds() - cpu0;
    const double wall = static_cast<double>(jp::mono_ns() - t0) * 1e-9;
    const double ticks = wall * 1e9 / static_cast<double>(interval_ns);
    if (sampling != nullptr) { // its window is the snapshots longer: a little high if anything
        *sampling = 1e6 * (jp::bench::thread_cpu()["jp-sample"] - thread0) / ticks;
    }
    stop();
    return 1e6 * cpu / ticks;
}

// A bare wake-up per tick, reading `files` at each (none: the floor).
double
wake_us(std::int64_t interval_ns, double seconds, const std::vector<jp::sys::PolledFile>& files) {
    jp::sys::Alarm alarm;
    std::thread thread;
    return cpu_per_tick_us(
        interval_ns, seconds,
        [&] {
            thread = std::thread{[&] {
                (void)::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
                for (auto next = jp::mono_ns() + interval_ns; !alarm.sleep_until(next);
                     next += interval_ns) {
                    for (const auto& f : files) {
                        (void)f.read_u64();
                    }
                }
            }};
        },
        [&] {
            alarm.stop();
            thread.join();
        });
}

double sampler_us(const std::filesystem::path& root,
                  std::int64_t interval_ns,
                  double seconds,
                  std::uint64_t& missed,
                  double& sampling_thread) {
    jp::bench::Monitor monitor{root, jp::Nanos{interval_ns}};
    const double us = cpu_per_tick_us(
        interval_ns, seconds, [&] { monitor.begin(); }, [&] { monitor.end(); }, &sampling_thread);
    missed += monitor.sampler().missed_deadlines();
    return us;
}

// The counters the reads column reads: the fake tree's, or every file in JP_BENCH_FILES.
std::vector<jp::sys::PolledFile> counter_files(const std::filesystem::path& root) {
    const char* dir = std::getenv("JP_BENCH_FILES");
    std::vector<std::filesystem::path> paths;
    if (dir != nullptr) {
        for (const auto& e : std::filesystem::directory_iterator{dir}) {
            if (e.is_regular_file()) {
                paths.push_back(e.path());
            }
        }
    } else {
        for (const auto& e : std::filesystem::directory_iterator{root / "sys/class/powercap"}) {
            paths.push_back(e.path() / "energy_uj");
        }
    }
    std::ranges::sort(paths);
    std::vector<jp::sys::PolledFile> files;
    for (const auto& p : paths) {
        auto f = jp::sys::PolledFile::open(p);
        if (!f || !f->read_u64()) {
            std::fprintf(stderr, "jp_bench_timer_floor: %s is not a readable number\n", p.c_str());
            std::exit(1);
        }
        files.push_back(std::move(*f));
    }
    return files;
}

struct Figures {
    std::vector<double> values;
    void print() const {
        auto v = values;
        std::ranges::sort(v);
        const auto n = v.size();
        const double median = n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
        std::printf(" %7.2f (%5.2f-%5.2f)", median, v.front(), v.back());
    }
};

} // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
    std::vector<double> intervals_ms{10, 1};
    if (argc > 3) {
        intervals_ms.clear();
        for (int i = 3; i < argc; ++i) {
            intervals_ms.push_back(std::atof(argv[i]));
        }
    }
    if (!(seconds > 0) || rounds < 1 ||
        std::ranges::any_of(intervals_ms, [](double ms) { return !(ms >= 1); })) {
        std::fprintf(stderr, "usage: jp_bench_timer_floor [SECONDS>0 [ROUNDS>=1 [MS>=1...]]]\n");
        return 2;
    }
    const auto root = jp::bench::fake_server("timer-floor");
    const auto files = counter_files(root);
    const std::vector<jp::sys::PolledFile> none;
    std::printf("process CPU per tick (us), %d rounds of %g s per way, the ways alternated; "
                "reads: %zu counters\n",
                rounds, seconds, files.size());
    std::printf("%8s %21s %21s %21s %21s %21s %21s %21s %7s\n", "interval", "floor", "reads",
                "sampler", "its jp-sample thread", "sampler/floor", "reads/floor", "sampler/reads",
                "missed");
    for (const double ms : intervals_ms) {
        const auto ns = static_cast<std::int64_t>(ms * 1e6);
        Figures floor_f;
        Figures reads_f;
        Figures sampler_f;
        Figures thread_f;
        Figures ratio_sf;
        Figures ratio_rf;
        Figures ratio_sr;
        std::uint64_t missed = 0;
        for (int r = 0; r < rounds; ++r) {
            double f = 0;
            double rd = 0;
            double s = 0;
            double th = 0;
            for (int k = 0; k < 3; ++k) { // which goes first rotates round by round
                switch ((r + k) % 3) {
                case 0:
                    f = wake_us(ns, seconds, none);
                    break;
                case 1:
                    rd = wake_us(ns, seconds, files);
                    break;
                default:
                    s = sampler_us(root, ns, seconds, missed, th);
                    break;
                }
            }
            floor_f.values.push_back(f);
            reads_f.values.push_back(rd);
            sampler_f.values.push_back(s);
            thread_f.values.push_back(th);
            ratio_sf.values.push_back(s / f);
            ratio_rf.values.push_back(rd / f);
            ratio_sr.values.push_back(s / rd);
        }
        std::printf("%5g ms", ms);
        for (const auto* fig :
             {&floor_f, &reads_f, &sampler_f, &thread_f, &ratio_sf, &ratio_rf, &ratio_sr}) {
            fig->print();
        }
        std::printf(" %7llu\n", static_cast<unsigned long long>(missed));
    }
    std::filesystem::remove_all(root);
}
