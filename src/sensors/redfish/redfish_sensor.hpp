// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The chassis' power and energy, polled over Redfish on the slow-sensor thread.
#include "sensors/redfish/connection.hpp"
#include "sensors/redfish/resources.hpp"
#include "sensors/sensor.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace jp::sensors::redfish {

class RedfishSensor final : public Sensor {
public:
    // channels[i] is read from sources[i]. A reading whose value and ReadingTime
    // have both stood still for longer than max(stale_after, 4 × the sensor's
    // SensingInterval) is stale.
    RedfishSensor(std::unique_ptr<Connection> connection,
                  std::vector<Channel> channels,
                  std::vector<Source> sources,
                  Nanos poll,
                  Nanos stale_after);

    std::string_view backend() const noexcept override { return "redfish"; }
    std::span<const Channel> channels() const noexcept override { return m_channels; }
    bool slow() const noexcept override { return true; }
    // A poll is one GET per resource (milliseconds): read at the job's edges too,
    // so the node's power is known from the job's first moment to its last.
    bool read_at_edges() const noexcept override { return true; }
    Nanos min_interval() const noexcept override { return m_poll; }
    // GETs each resource once (each within the timeout); W or J. A failed GET,
    // an unusable or stale reading is retry for its channels, logged once until
    // every channel reads again. After a transport failure (refused, timeout)
    // the poll's other resources are not tried.
    void read(std::span<Value> out) noexcept override;

private:
    using Clock = std::chrono::steady_clock;
    struct Freshness {
        bool seen = false;
        double value = 0;
        std::string reading_time;
        Clock::time_point since;
    };

    Value read_channel(std::size_t i, const std::string& body, Clock::time_point now);
    [[nodiscard]] bool
    stale(std::size_t i, double value, const std::string& reading_time, Clock::time_point now);
    void said(const std::string& what) noexcept;

    std::unique_ptr<Connection> m_connection;
    std::vector<Channel> m_channels;
    std::vector<Source> m_sources;
    std::vector<Freshness> m_fresh;
    Nanos m_poll;
    Nanos m_stale_after;
    bool m_warned = false;
};

} // namespace jp::sensors::redfish
