// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/perf_rapl/perf_sensor.hpp"

#include <cerrno>

namespace jp::sensors::perf_rapl {

PerfRaplSensor::PerfRaplSensor(std::vector<Channel> channels,
                               std::vector<Counter> counters,
                               const PerfApi& api)
    : m_channels(std::move(channels)), m_counters(std::move(counters)),
      m_gone(m_channels.size(), false), m_api(&api) {}

PerfRaplSensor::~PerfRaplSensor() {
    close_all(*m_api, m_counters);
}

void PerfRaplSensor::read(std::span<Value> out) noexcept {
    for (std::size_t i = 0; i < m_counters.size(); ++i) {
        out[i] = read_one(i);
    }
}

Value PerfRaplSensor::read_one(std::size_t i) noexcept {
    if (m_gone[i]) {
        return {0, ReadStatus::gone};
    }
    std::uint64_t count = 0;
    errno = 0;
    if (m_api->read_count(m_counters[i].fd, &count) == 0) {
        return {static_cast<double>(count) * m_counters[i].joules_per_count, ReadStatus::ok};
    }
    switch (errno) {
    case ENODEV:
    case ENXIO:
    case ENOENT:
        m_gone[i] = true;
        return {0, ReadStatus::gone};
    case EACCES:
    case EPERM:
    case EBADF:
        return {0, ReadStatus::fatal};
    default:
        return {0, ReadStatus::retry};
    }
}

void close_all(const PerfApi& api, std::vector<Counter>& counters) noexcept {
    for (auto& c : counters) {
        if (c.fd >= 0) {
            api.close(c.fd);
            c.fd = -1;
        }
    }
}

} // namespace jp::sensors::perf_rapl
