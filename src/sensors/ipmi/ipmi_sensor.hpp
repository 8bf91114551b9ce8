// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The node meter read from the BMC over IPMI: one channel, from the Lenovo XCC
// energy counter (joules), DCMI Get Power Reading (watts, the BMC's averages)
// or an SDR sensor in Watts. A slow sensor: polled on its own thread, and read
// at the job's edges too (one request, milliseconds in-band or on a LAN).
#include "sensors/ipmi/sdr.hpp"
#include "sensors/ipmi/transport.hpp"
#include "sensors/sensor.hpp"

#include <chrono>
#include <memory>
#include <optional>

namespace jp::sensors::ipmi {

enum class Source : std::uint8_t { xcc, dcmi, sdr };

[[nodiscard]] std::string_view to_string(Source s) noexcept; // "xcc", "dcmi", "sdr"

class IpmiSensor final : public Sensor {
public:
    // sdr: the sensor to read when source is sdr; stale_after: 0 for the rule below.
    IpmiSensor(std::unique_ptr<Transport> transport,
               Source source,
               Channel channel,
               Nanos poll,
               std::optional<SdrPowerSensor> sdr = std::nullopt,
               Nanos stale_after = Nanos{0});

    std::string_view backend() const noexcept override { return "ipmi"; }
    std::span<const Channel> channels() const noexcept override { return {&m_channel, 1}; }
    bool slow() const noexcept override { return true; }
    bool read_at_edges() const noexcept override { return true; }
    Nanos min_interval() const noexcept override { return m_poll; }
    // A failed request, a completion code, an inactive DCMI measurement or a
    // reading whose BMC timestamp has not moved for stale_after() is retry,
    // said once in the log until a good reading comes back.
    void read(std::span<Value> out) noexcept override;

    // The BMC's clock must move within this (10 s, or 5 polls if longer).
    [[nodiscard]] Nanos stale_after() const noexcept;

private:
    Value read_xcc();
    Value read_dcmi();
    Value read_sdr();
    // A reading stamped by the BMC: false (and said) when the stamp stood still too long.
    bool fresh(double bmc_stamp);
    void trouble(const std::string& what) noexcept;

    std::unique_ptr<Transport> m_transport;
    Source m_source;
    Channel m_channel;
    Nanos m_poll;
    std::optional<SdrPowerSensor> m_sdr;
    Nanos m_stale_after;
    double m_last_stamp = -1;
    std::chrono::steady_clock::time_point m_stamp_moved;
    bool m_warned = false;
};

} // namespace jp::sensors::ipmi
