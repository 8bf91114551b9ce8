// SPDX-License-Identifier: BSD-3-Clause
// What sampling a counter at 1 kHz takes from a CPU-bound job on the counter's CPU, measured
// in windows that alternate inside one long job (issue 31: the job slowed <= 0.3 % with the
// eBPF sampler). bench/kernel_sampling.sh times whole runs, whose spread on this VM (up to
// 11 % run to run) hides a fraction of a per cent; here the drift of minutes is shared by
// neighbouring windows a quarter of a second apart:
//   a thread pinned to CPU 0 mixes integers without end and counts its rounds per window;
//   the windows cycle through: nothing | the kernel sampler at 1 kHz | nothing | the timer |
//   nothing | a bare tick;
//   kernel: the eBPF program reads the counter at every tick of a CPU-clock event on CPU 0
//           (bpf::KernelSampler, as jouleprof's perf_rapl does; off, its period is 10 s);
//   timer:  a thread on CPU 1 wakes every 1 ms and reads the same counter, which the kernel
//           reads on CPU 0 by a cross-CPU call. The timer sampler's read of this stand-in does
//           that; a real RAPL event is read on any CPU of its package without one
//           (PERF_EV_CAP_READ_ACTIVE_PKG), so there only reads from another package would;
//   bare:   a CPU-clock event on CPU 0 ticking at 1 kHz with nothing attached: the interrupt
//           the kernel sampler rides, without its program, its maps or its ring buffer (it
//           runs perf's own overflow path instead, which finds no buffer and writes nothing).
//           What the kernel sampler costs over this is what jouleprof's program adds; this is
//           the cost of a 1 kHz timer on the job's CPU.
// Each sampled window's rate against the mean of the two quiet windows beside it is one
// slowdown; their median and a 95 % interval of the median (order statistics) are printed.
// The counter: the msr PMU's tsc on CPU 0 (the VM's stand-in for RAPL, as the tests use), else
// the CPU clock. Needs root (CAP_BPF, CAP_PERFMON).
//   jp_bench_tick_slowdown [SECONDS [WINDOW_MS]]
#include "bpf/kernel_sampler.hpp"
#include "core/clock.hpp"
#include "mix.hpp"
#include "sys/alarm.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

enum class Way : int { quiet, kernel, timer, bare };
constexpr std::int64_t k_tick_ns = 1'000'000;
constexpr std::int64_t k_off_ns = 10'000'000'000; // the kernel sampler's period while off

bool pin(std::size_t cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set) == 0;
}

int open_counter(const char** what) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    std::uint32_t type = 0;
    if (std::ifstream in{"/sys/bus/event_source/devices/msr/type"}; in >> type) {
        attr.type = type; // config 0: tsc
        *what = "msr/tsc on CPU 0";
    } else {
        attr.type = PERF_TYPE_SOFTWARE;
        attr.config = PERF_COUNT_SW_CPU_CLOCK;
        *what = "the CPU clock of CPU 0";
    }
    return static_cast<int>(::syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC));
}

using jp::bench::mix;

struct Interval {
    double median = 0;
    double low = 0;
    double high = 0;
};

// The median and its ~95 % interval: the order statistics of ranks n/2 -+ 1.96 sqrt(n)/2
// (1-based: the floor below, the ceiling above, plus one).
Interval median_of(std::vector<double> v) {
    std::ranges::sort(v);
    const auto n = static_cast<double>(v.size());
    const auto at = [&](double rank) { // 1-based, clamped
        return v[static_cast<std::size_t>(std::clamp(rank, 1.0, n) - 1)];
    };
    const double half = 0.98 * std::sqrt(n);
    return {v.size() % 2 == 1 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]),
            at(std::floor(n / 2 - half)), at(std::ceil(n / 2 + half) + 1)};
}

} // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 60;
    const double window_ms = argc > 2 ? std::atof(argv[2]) : 250;
    if (!(seconds >= 4) || !(window_ms >= 20) || std::thread::hardware_concurrency() < 2) {
        std::fputs(
            "usage: jp_bench_tick_slowdown [SECONDS>=4 [WINDOW_MS>=20]] (two CPUs or more)\n",
            stderr);
        return 2;
    }
    const char* what = "";
    const int fd = open_counter(&what);
    if (fd < 0) {
        std::perror("jp_bench_tick_slowdown: perf_event_open on CPU 0 (root?)");
        return 2;
    }
    // The sampler's own tick on CPU 0, enabled in its windows, with nothing attached: no
    // program, no buffer (an overflow with nowhere to write is dropped).
    const int bare_fd = jp::bpf::open_tick_event(0, k_tick_ns, true);
    if (bare_fd < 0) {
        std::perror("jp_bench_tick_slowdown: perf_event_open of a CPU-clock tick on CPU 0");
        return 2;
    }
    const jp::bpf::CounterSpec spec{fd, 0};
    auto sampler = jp::bpf::KernelSampler::start({&spec, 1}, {k_off_ns, 0, true});
    if (!sampler) {
        std::fprintf(stderr, "jp_bench_tick_slowdown: %s\n", sampler.error().c_str());
        return 2;
    }
    (void)pin(1);
    const auto window_ns = static_cast<std::int64_t>(window_ms * 1e6);
    const auto windows = static_cast<std::size_t>(seconds * 1e9 / static_cast<double>(window_ns));
    std::vector<std::uint64_t> rounds(windows + 1, 0); // the spinner's alone until it stops
    std::vector<std::int64_t> starts(windows + 1, 0);
    std::atomic<std::size_t> window{0};
    std::atomic<bool> stop{false};
    std::atomic<std::uint64_t> sink{0};
    std::jthread spinner{[&] {
        if (!pin(0)) {
            std::fputs("jp_bench_tick_slowdown: cannot pin to CPU 0\n", stderr);
            std::exit(2);
        }
        constexpr std::uint64_t k_block = 20'000; // ~30 µs: a window's edge is off by one block
        std::uint64_t x = 88172645463325252ULL;
        while (!stop.load(std::memory_order_relaxed)) {
            x = mix(x, k_block);
            rounds[window.load(std::memory_order_relaxed)] += k_block;
        }
        sink = x;
    }};
    std::atomic<bool> timer_on{false};
    jp::sys::Alarm timer_stop;
    std::jthread timer{[&] {
        (void)pin(1);
        std::uint64_t value = 0;
        std::int64_t next = jp::mono_ns();
        while (!timer_stop.stopped()) {
            next += k_tick_ns;
            if (timer_stop.sleep_until(next)) {
                break;
            }
            if (timer_on.load(std::memory_order_relaxed)) {
                (void)::read(fd, &value, sizeof value); // a cross-CPU call to CPU 0
            }
        }
    }};
    std::vector<jp::bpf::Reading> drained;
    std::vector<std::uint64_t> lost;
    const Way cycle[] = {Way::quiet, Way::kernel, Way::quiet, Way::timer, Way::quiet, Way::bare};
    constexpr std::size_t k_cycle = std::size(cycle);
    std::vector<Way> ways(windows + 1, Way::quiet);
    std::int64_t t = jp::mono_ns();
    for (std::size_t w = 0; w < windows; ++w) {
        const Way way = cycle[w % k_cycle];
        ways[w] = way;
        if (way == Way::kernel) {
            (void)sampler.value()->set_period(k_tick_ns);
        } else if (w > 0 && ways[w - 1] == Way::kernel) {
            (void)sampler.value()->set_period(k_off_ns);
        }
        timer_on.store(way == Way::timer, std::memory_order_relaxed);
        if (way == Way::bare) {
            (void)::ioctl(bare_fd, PERF_EVENT_IOC_ENABLE, 0);
        } else if (w > 0 && ways[w - 1] == Way::bare) {
            (void)::ioctl(bare_fd, PERF_EVENT_IOC_DISABLE, 0);
        }
        starts[w] = jp::mono_ns();
        window.store(w, std::memory_order_relaxed);
        t += window_ns;
        jp::sleep_until_mono(t);
        drained.clear();
        sampler.value()->drain(drained, lost);
    }
    starts[windows] = jp::mono_ns();
    window.store(windows, std::memory_order_relaxed);
    timer_on = false;
    stop = true;
    timer_stop.stop();
    spinner.join();
    timer.join();
    const auto stats = sampler.value()->stats();
    sampler.value()->stop();
    ::close(fd);
    ::close(bare_fd);

    const auto rate = [&](std::size_t w) {
        return static_cast<double>(rounds[w]) / static_cast<double>(starts[w + 1] - starts[w]);
    };
    std::vector<double> kernel;
    std::vector<double> timer_slow;
    std::vector<double> bare;
    std::vector<double> over_bare; // a cycle's kernel window less its bare one: what we add
    double cycle_kernel = NAN;
    std::vector<double> quiet_spread;
    for (std::size_t w = k_cycle; w + 1 < windows; ++w) { // the first cycle warms up
        const double beside = 0.5 * (rate(w - 1) + rate(w + 1));
        if (ways[w] == Way::kernel) {
            kernel.push_back(100 * (1 - rate(w) / beside));
            cycle_kernel = kernel.back();
        } else if (ways[w] == Way::timer) {
            timer_slow.push_back(100 * (1 - rate(w) / beside));
        } else if (ways[w] == Way::bare) {
            bare.push_back(100 * (1 - rate(w) / beside));
            if (!std::isnan(cycle_kernel)) {
                over_bare.push_back(cycle_kernel - bare.back());
            }
            cycle_kernel = NAN;
        } else if (w + 2 < windows) {
            // A quiet window against the quiet ones two away (every even window is quiet):
            // what noise alone gives, at twice the sampled windows' distance.
            quiet_spread.push_back(100 * (1 - rate(w) / (0.5 * (rate(w - 2) + rate(w + 2)))));
        }
    }
    if (kernel.size() < 4 || timer_slow.size() < 4 || bare.size() < 4) {
        std::fputs("jp_bench_tick_slowdown: too few windows: run longer\n", stderr);
        return 2;
    }
    std::printf("job: integer mixing pinned to CPU 0; counter: %s; %zu windows of %g ms, cycling "
                "quiet | kernel 1 kHz | quiet | timer 1 kHz | quiet | bare tick 1 kHz\n",
                what, windows, window_ms);
    std::printf("%-30s %8s %22s %6s\n", "way", "median", "95 % interval of it", "pairs");
    for (const auto& [name, v] : {std::pair{"kernel sampler (eBPF)", &kernel},
                                  std::pair{"bare tick (nothing attached)", &bare},
                                  std::pair{"timer, cross-CPU read", &timer_slow},
                                  std::pair{"kernel less bare, by cycle", &over_bare},
                                  std::pair{"quiet vs quiet (noise)", &quiet_spread}}) {
        if (v->empty()) {
            continue;
        }
        const auto m = median_of(*v);
        std::printf("%-30s %+7.3f%% %+9.3f%% to %+7.3f%% %6zu\n", name, m.median, m.low, m.high,
                    v->size());
    }
    if (stats.run_count > 0) {
        std::printf("the eBPF program: %.0f ns a run over %llu runs (the kernel's count)\n",
                    static_cast<double>(stats.run_time_ns) / static_cast<double>(stats.run_count),
                    static_cast<unsigned long long>(stats.run_count));
    }
    return sink.load() == 1 ? 1 : 0; // keeps the mixing alive
}
