// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/sysfs_sensor.hpp"

#include "core/clock.hpp"

#include <cerrno>

namespace jp::sensors {

SysfsSensor::SysfsSensor(std::string_view backend,
                         std::vector<Channel> channels,
                         std::vector<SysfsAttribute> attributes,
                         Nanos min_interval)
    : m_backend(backend), m_channels(std::move(channels)), m_attributes(std::move(attributes)),
      m_gone(m_channels.size(), false), m_min_interval(min_interval) {}

void SysfsSensor::read(std::span<Value> out) noexcept {
    const auto now = mono_ns();
    const bool check = now - m_last_check >= k_presence_check_ns;
    if (check) {
        m_last_check = now;
    }
    for (std::size_t i = 0; i < m_attributes.size(); ++i) {
        out[i] = read_one(i, check);
    }
}

Value SysfsSensor::read_one(std::size_t i, bool check_presence) noexcept {
    auto& attr = m_attributes[i];
    if (m_gone[i] || (check_presence && !attr.file.still_present())) {
        m_gone[i] = true;
        return {0, ReadStatus::gone};
    }
    auto raw = attr.file.read_u64();
    if (raw) {
        return {static_cast<double>(*raw) * attr.scale, ReadStatus::ok};
    }
    switch (raw.error()) {
    case ENODEV:
    case ENOENT:
    case ENXIO:
        m_gone[i] = true;
        return {0, ReadStatus::gone};
    case EACCES:
    case EPERM:
        return {0, ReadStatus::fatal};
    default:
        return {0, ReadStatus::retry};
    }
}

} // namespace jp::sensors
