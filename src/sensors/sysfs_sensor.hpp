// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A sensor whose channels are integer sysfs attributes (powercap energy_uj,
// hwmon power*_input, ...): each read from an fd kept open and scaled to SI.
// A file that disappears (checked about once a second, and ENODEV/ENOENT on
// read) is gone for good; EACCES is fatal; anything else (EAGAIN, EIO,
// ENODATA, malformed or torn content) is retried at the next tick.
#include "sensors/sensor.hpp"
#include "sys/file.hpp"

#include <vector>

namespace jp::sensors {

struct SysfsAttribute {
    sys::PolledFile file;
    double scale = 1; // raw integer -> W or J (µJ: 1e-6)
};

class SysfsSensor final : public Sensor {
public:
    SysfsSensor(std::string_view backend,
                std::vector<Channel> channels,
                std::vector<SysfsAttribute> attributes,
                Nanos min_interval = std::chrono::milliseconds{1});

    std::string_view backend() const noexcept override { return m_backend; }
    std::span<const Channel> channels() const noexcept override { return m_channels; }
    Nanos min_interval() const noexcept override { return m_min_interval; }
    void read(std::span<Value> out) noexcept override;

    static constexpr std::int64_t k_presence_check_ns = 1'000'000'000;

private:
    Value read_one(std::size_t i, bool check_presence) noexcept;

    std::string_view m_backend;
    std::vector<Channel> m_channels;
    std::vector<SysfsAttribute> m_attributes;
    std::vector<bool> m_gone;
    Nanos m_min_interval;
    std::int64_t m_last_check = 0;
};

} // namespace jp::sensors
