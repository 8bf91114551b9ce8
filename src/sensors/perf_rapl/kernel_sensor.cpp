// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/perf_rapl/kernel_sensor.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"

#include <cstring>

namespace jp::sensors::perf_rapl {

KernelSampledSensor::KernelSampledSensor(std::unique_ptr<PerfRaplSensor> counters,
                                         std::unique_ptr<bpf::KernelSampler> sampler)
    : m_counters(std::move(counters)),
      m_channels(m_counters->channels().begin(), m_counters->channels().end()),
      m_sampler(std::move(sampler)) {
    for (auto& c : m_channels) {
        c.source += ", sampled in the kernel (eBPF)";
    }
}

KernelSampledSensor::~KernelSampledSensor() {
    if (const auto runs = program_stats(); runs.run_count > 0) {
        JP_LOG_INFO("perf_rapl: the kernel sampler ran {} times, {:.0f} ns a run (the kernel's "
                    "count: kernel.bpf_stats_enabled)",
                    runs.run_count,
                    static_cast<double>(runs.run_time_ns) / static_cast<double>(runs.run_count));
    }
}

void KernelSampledSensor::prepare(Nanos interval) {
    if (m_sampler == nullptr || m_sampler->period_ns() == interval.count()) {
        return;
    }
    if (auto r = m_sampler->set_period(interval.count()); !r) {
        JP_LOG_WARN("perf_rapl: read from a timer from now on, not in the kernel: {}", r.error());
        m_sampler.reset();
    }
}

void KernelSampledSensor::read_directly(std::vector<Stamped>& out, const std::vector<bool>& skip) {
    m_direct.resize(m_channels.size());
    const auto before = mono_ns();
    m_counters->read(m_direct);
    const auto after = mono_ns();
    for (std::uint32_t i = 0; i < m_direct.size(); ++i) {
        if (i < skip.size() && skip[i]) {
            continue;
        }
        Value v = m_direct[i];
        v.t_mono_ns = before + (after - before) / 2;
        v.call_ns = after - before;
        out.push_back(Stamped{i, v});
    }
}

void KernelSampledSensor::drain(std::vector<Stamped>& out, std::vector<std::uint64_t>& lost) {
    if (m_sampler == nullptr) {
        lost.clear();
        read_directly(out, {});
        return;
    }
    m_readings.clear();
    m_sampler->drain(m_readings, lost);
    const auto& counters = m_counters->counters();
    m_failed_in_row.resize(counters.size(), 0);
    m_silent_in_row.resize(counters.size(), 0);
    m_ticked.assign(counters.size(), false);
    int give_up = 0; // the error of a counter that failed k_give_up times in a row
    std::uint32_t which = 0;
    for (const auto& r : m_readings) {
        if (r.slot >= counters.size()) {
            continue;
        }
        Value v{static_cast<double>(r.count) * counters[r.slot].joules_per_count,
                r.error == 0 ? ReadStatus::ok : ReadStatus::retry, r.t_mono_ns};
        v.call_ns = r.call_ns;
        out.push_back(Stamped{r.slot, v});
        m_ticked[r.slot] = true;
        auto& failed = m_failed_in_row[r.slot];
        failed = r.error == 0 ? 0 : failed + 1;
        if (failed >= k_give_up && give_up == 0) {
            give_up = r.error;
            which = r.slot;
        }
    }
    if (give_up != 0) {
        JP_LOG_WARN("perf_rapl: the kernel's reads of {} failed {} times in a row ({}): read "
                    "directly every drain from now on, not in the kernel",
                    m_channels[which].name, k_give_up, std::strerror(-give_up));
        m_sampler.reset();
        return;
    }
    // Silence counts only over drains at least two ticks apart: jouleprofd's exact reads drain
    // too, and may come within a tick of each other.
    const auto now = mono_ns();
    const bool long_enough = now - m_last_drain_ns >= 2 * m_sampler->period_ns();
    m_last_drain_ns = now;
    if (!long_enough) {
        return;
    }
    bool silent = false;
    for (std::size_t i = 0; i < counters.size(); ++i) {
        auto& in_row = m_silent_in_row[i];
        in_row = m_ticked[i] ? 0 : in_row + 1;
        silent = silent || !m_ticked[i];
        if (in_row == k_give_up && !m_said_silent) {
            m_said_silent = true;
            JP_LOG_INFO("perf_rapl: no kernel tick read {} for {} drains (CPU {} idle without "
                        "ticks, offline, or its ticks throttled): read directly at each drain "
                        "while its ticks are missing",
                        m_channels[i].name, k_give_up, counters[i].cpu);
        }
    }
    if (silent) {
        read_directly(out, m_ticked);
    }
}

bpf::ProgramStats KernelSampledSensor::program_stats() const {
    return m_sampler != nullptr ? m_sampler->stats() : bpf::ProgramStats{};
}

std::unique_ptr<Sensor> sample_in_kernel(std::unique_ptr<PerfRaplSensor> counters,
                                         std::size_t ring_bytes,
                                         std::string& note) {
    std::vector<bpf::CounterSpec> specs;
    for (const auto& c : counters->counters()) {
        specs.push_back(bpf::CounterSpec{c.fd, c.cpu});
    }
    // A tick of a tenth of a second until prepare() sets the sampling interval; unless told
    // otherwise, a ring that holds 8 s at the shortest interval (1 ms): what the sampler's
    // queue holds for a trace writer that stalls (k_queue_headroom), as the writer may run on
    // the thread that drains the ring (Sampler::set_drain_companion).
    constexpr std::int64_t k_first_period = 100'000'000;
    constexpr std::int64_t k_shortest = 1'000'000;
    constexpr std::int64_t k_held = 8'000'000'000;
    auto sampler = bpf::KernelSampler::start(
        specs,
        {k_first_period,
         ring_bytes != 0 ? ring_bytes : bpf::ring_bytes_for(specs.size(), k_shortest, k_held)});
    if (!sampler) {
        note = sampler.error();
        return counters;
    }
    return std::make_unique<KernelSampledSensor>(std::move(counters), std::move(*sampler));
}

} // namespace jp::sensors::perf_rapl
