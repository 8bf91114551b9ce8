// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// perf counters sampled in the kernel (bpf/kernel_sampler.hpp): the eBPF program reads them
// at every tick on their own CPU, and the sampler drains the readings every 100 ms. The job's
// edges are still read directly. Should the kernel refuse a new period, the counters are read
// from the sampler's timer from then on, and a warning says so (the channels' sources, fixed
// at discovery, still name the kernel).
#include "bpf/kernel_sampler.hpp"
#include "sensors/perf_rapl/perf_sensor.hpp"

#include <memory>
#include <string>

namespace jp::sensors::perf_rapl {

class KernelSampledSensor final : public Sensor {
public:
    KernelSampledSensor(std::unique_ptr<PerfRaplSensor> counters,
                        std::unique_ptr<bpf::KernelSampler> sampler);
    KernelSampledSensor(const KernelSampledSensor&) = delete;
    KernelSampledSensor& operator=(const KernelSampledSensor&) = delete;
    KernelSampledSensor(KernelSampledSensor&&) = delete;
    KernelSampledSensor& operator=(KernelSampledSensor&&) = delete;
    // Logs the program's runs and their time where the kernel counted them.
    ~KernelSampledSensor() override;

    std::string_view backend() const noexcept override { return m_counters->backend(); }
    // The counters' channels, each source saying "sampled in the kernel (eBPF)".
    std::span<const Channel> channels() const noexcept override { return m_channels; }
    void read(std::span<Value> out) noexcept override { m_counters->read(out); }
    // Ticks at interval from now on.
    void prepare(Nanos interval) override;
    [[nodiscard]] bool batched() const noexcept override { return m_sampler != nullptr; }
    // A reading the kernel could not take (its read's error) is a retry, as a failed read is.
    // After k_give_up of a counter's in a row (a PMU that cannot be read in the kernel) the
    // kernel sampler is stopped with a warning, and each drain from then on reads the
    // counters directly instead. A counter no tick read since the last drain (its CPU idle
    // without ticks, offline, or its ticks throttled by the kernel) is read directly at that
    // drain, so its profile has no gap longer than a drain; said once, at k_give_up drains.
    void drain(std::vector<Stamped>& out, std::vector<std::uint64_t>& lost) override;
    static constexpr int k_give_up = 10;

    // The kernel's own count of the program's runs and their time (kernel.bpf_stats_enabled).
    [[nodiscard]] bpf::ProgramStats program_stats() const;

private:
    // Reads the counters now, stamped at the read's middle; appends those not in skip.
    void read_directly(std::vector<Stamped>& out, const std::vector<bool>& skip);

    std::unique_ptr<PerfRaplSensor> m_counters;
    std::vector<Channel> m_channels;
    std::unique_ptr<bpf::KernelSampler> m_sampler; // null: read from the timer
    std::vector<bpf::Reading> m_readings;
    std::vector<int> m_failed_in_row; // per counter
    std::vector<int> m_silent_in_row; // per counter: drains without a tick's reading
    std::vector<bool> m_ticked;       // per counter: read by a tick since the last drain
    bool m_said_silent = false;
    std::int64_t m_last_drain_ns = 0; // CLOCK_MONOTONIC
    std::vector<Value> m_direct;      // a direct read
};

// Starts the kernel sampler on the counters; where it cannot, returns them as they are
// (read from the timer) and puts the reason in note.
[[nodiscard]] std::unique_ptr<Sensor> sample_in_kernel(std::unique_ptr<PerfRaplSensor> counters,
                                                       std::size_t ring_bytes,
                                                       std::string& note);

} // namespace jp::sensors::perf_rapl
