// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Sampling perf counters in the kernel (docs/kernel-sampling.md): an eBPF program
// (tick.bpf.c) on a software CPU-clock event, one per CPU that owns counters, reads those
// counters at every tick and writes (time, value) to a ring buffer. User space drains it
// when it likes (the sampler, every 100 ms), so a kilohertz profile costs ten wake-ups a
// second instead of a thousand. Needs CAP_BPF and CAP_PERFMON (root, jouleprofd); where
// that or the kernel's support is missing, start() says why in one line and the caller
// reads its counters from a timer as before.
#include <cstdint>
#include <expected>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace jp::bpf {

// A perf event to sample: its fd (a counting event opened with pid -1 on cpu; the caller
// keeps it open while the sampler runs) and that CPU, where the program reads it.
struct CounterSpec {
    int fd = -1;
    int cpu = 0;
};

struct Reading {
    std::uint32_t slot = 0;     // the counter's index in the specs given to start()
    std::int64_t t_mono_ns = 0; // CLOCK_MONOTONIC, the middle of the kernel's read
    std::int64_t call_ns = 0;   // how long that read took
    std::uint64_t count = 0;
    int error = 0; // 0, or the read's -errno (count then 0)
};

struct Options {
    std::int64_t period_ns = 1'000'000; // the tick: the sampling interval
    // The ring buffer's size in bytes (a power of two from a page to 256 MiB); 0: a second
    // of every counter's readings at the period.
    std::size_t ring_bytes = 0;
    // Has the kernel count the program's runs and their time while this sampler lives
    // (BPF_ENABLE_STATS, as kernel.bpf_stats_enabled = 1 does): the benchmark's, and the
    // tests', measure of its cost. Costs two clock reads per run.
    bool count_runs = false;
};

// What the kernel says the program cost (Options::count_runs or kernel.bpf_stats_enabled = 1;
// zeros otherwise).
struct ProgramStats {
    std::uint64_t run_time_ns = 0;
    std::uint64_t run_count = 0;
};

class KernelSampler {
public:
    // Loads the program, hands it the counters and starts a tick on each CPU that owns one.
    // The error is one line: what was refused and what would allow it.
    [[nodiscard]] static std::expected<std::unique_ptr<KernelSampler>, std::string>
    start(std::span<const CounterSpec> counters, const Options& options);

    KernelSampler(const KernelSampler&) = delete;
    KernelSampler& operator=(const KernelSampler&) = delete;
    KernelSampler(KernelSampler&&) = delete;
    KernelSampler& operator=(KernelSampler&&) = delete;
    ~KernelSampler();

    // Ticks at a new period from now on (the readings already buffered stay).
    [[nodiscard]] std::expected<void, std::string> set_period(std::int64_t period_ns);
    // Stops every tick; what they wrote can still be drained.
    void stop() noexcept;
    // Appends every reading written since the last drain (each counter's in time order);
    // lost_out[slot] gets how many of that counter's readings found the buffer full since
    // the last drain (resized to the number of counters).
    void drain(std::vector<Reading>& out, std::vector<std::uint64_t>& lost_out);
    [[nodiscard]] std::int64_t period_ns() const noexcept;
    [[nodiscard]] std::size_t ring_bytes() const noexcept;
    [[nodiscard]] ProgramStats stats() const;

private:
    struct State;
    explicit KernelSampler(std::unique_ptr<State> state);
    std::unique_ptr<State> m_state;
};

// Whether this build has the kernel sampler (libbpf, bpftool and clang's BPF target were
// found at build time); without it, start() says so.
[[nodiscard]] bool built_in() noexcept;

// The sizes the kernel takes for a ring buffer: powers of two in [a page, k_ring_most].
inline constexpr std::size_t k_ring_page = 4096;
inline constexpr std::size_t k_ring_most = std::size_t{256} << 20U;

// The smallest ring this kernel takes: k_ring_page, or its page where larger (64 KiB on some
// arm64 and ppc64le kernels).
[[nodiscard]] std::size_t smallest_ring() noexcept;

// Bytes the ring needs to hold held_ns of n counters' readings at period_ns: the smallest
// size the kernel takes that holds them (k_ring_page, or this kernel's larger page, up), at
// most k_ring_most.
[[nodiscard]] std::size_t
ring_bytes_for(std::size_t n, std::int64_t period_ns, std::int64_t held_ns) noexcept;

// The sampler's tick: a software CPU-clock sampling event on cpu with period_ns as its period
// (disabled: until PERF_EVENT_IOC_ENABLE). The file descriptor (close-on-exec), or -1 with
// errno set. Built with or without the sampler: a benchmark opens the same tick bare.
[[nodiscard]] int open_tick_event(int cpu, std::int64_t period_ns, bool disabled = false) noexcept;

} // namespace jp::bpf
