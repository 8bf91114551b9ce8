// SPDX-License-Identifier: BSD-3-Clause
// What the kernel sampler needs built with or without libbpf: its ring's size, its tick.
#include "bpf/kernel_sampler.hpp"
#include "bpf/tick_record.h"

#include <algorithm>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace jp::bpf {

std::size_t smallest_ring() noexcept {
    return std::max(k_ring_page,
                    static_cast<std::size_t>(std::max(4096L, ::sysconf(_SC_PAGESIZE))));
}

std::size_t ring_bytes_for(std::size_t n, std::int64_t period_ns, std::int64_t held_ns) noexcept {
    constexpr std::size_t k_record = sizeof(jp_tick_record) + 8; // + the ring's own header
    const auto per_counter = static_cast<std::size_t>(std::max<std::int64_t>(0, held_ns) /
                                                      std::max<std::int64_t>(1, period_ns)) +
                             1;
    // In doubles first: n × readings × record can overflow, k_ring_most cannot.
    const double want = std::min(static_cast<double>(k_ring_most),
                                 static_cast<double>(std::max<std::size_t>(1, n)) *
                                     static_cast<double>(per_counter) * k_record);
    std::size_t bytes = smallest_ring();
    while (static_cast<double>(bytes) < want) {
        bytes *= 2;
    }
    return bytes;
}

int open_tick_event(int cpu, std::int64_t period_ns, bool disabled) noexcept {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_CPU_CLOCK;
    attr.sample_period = static_cast<std::uint64_t>(period_ns);
    attr.disabled = disabled ? 1 : 0;
    return static_cast<int>(
        ::syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

} // namespace jp::bpf
