// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Reads RAPL energy counters opened with perf_event_open(2).
#include "sensors/sensor.hpp"

#include <cstdint>
#include <vector>

namespace jp::sensors::perf_rapl {

struct Counter {
    int fd = -1;                 // from PerfApi::open
    double joules_per_count = 0; // the event's sysfs scale
    int cpu = 0;                 // the CPU it was opened on (the kernel sampler reads it there)
};

// Owns the fds (closed through api on destruction).
class PerfRaplSensor final : public Sensor {
public:
    PerfRaplSensor(std::vector<Channel> channels,
                   std::vector<Counter> counters,
                   const PerfApi& api);
    ~PerfRaplSensor() override;
    PerfRaplSensor(const PerfRaplSensor&) = delete;
    PerfRaplSensor& operator=(const PerfRaplSensor&) = delete;
    PerfRaplSensor(PerfRaplSensor&&) = delete;
    PerfRaplSensor& operator=(PerfRaplSensor&&) = delete;

    std::string_view backend() const noexcept override { return "perf_rapl"; }
    std::span<const Channel> channels() const noexcept override { return m_channels; }
    // Energy in J = 64-bit count × scale (perf widens the 32-bit MSR: no wrap).
    // read failures: ENODEV/ENXIO/ENOENT gone (sticky), EACCES/EPERM/EBADF fatal,
    // anything else (EAGAIN, EINTR, EIO, a short read) retry.
    void read(std::span<Value> out) noexcept override;
    [[nodiscard]] const std::vector<Counter>& counters() const noexcept { return m_counters; }

private:
    Value read_one(std::size_t i) noexcept;

    std::vector<Channel> m_channels;
    std::vector<Counter> m_counters;
    std::vector<bool> m_gone;
    const PerfApi* m_api;
};

// Closes every fd in counters through api (used when discovery gives up).
void close_all(const PerfApi& api, std::vector<Counter>& counters) noexcept;

} // namespace jp::sensors::perf_rapl
