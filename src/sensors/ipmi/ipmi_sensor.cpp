// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/ipmi/ipmi_sensor.hpp"

#include "core/log.hpp"
#include "sensors/ipmi/readings.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace jp::sensors::ipmi {

std::string_view to_string(Source s) noexcept {
    switch (s) {
    case Source::xcc:
        return "xcc";
    case Source::dcmi:
        return "dcmi";
    case Source::sdr:
        return "sdr";
    }
    return "?";
}

IpmiSensor::IpmiSensor(std::unique_ptr<Transport> transport,
                       Source source,
                       Channel channel,
                       Nanos poll,
                       std::optional<SdrPowerSensor> sdr,
                       Nanos stale_after)
    : m_transport(std::move(transport)), m_source(source), m_channel(std::move(channel)),
      m_poll(poll), m_sdr(std::move(sdr)),
      m_stale_after(stale_after.count() > 0 ? stale_after
                                            : std::max<Nanos>(std::chrono::seconds{10}, 5 * poll)) {
}

Nanos IpmiSensor::stale_after() const noexcept {
    return m_stale_after;
}

void IpmiSensor::trouble(const std::string& what) noexcept {
    if (!m_warned) { // once per stretch of failures, not at every poll
        m_warned = true;
        try {
            JP_LOG_WARN("ipmi ({}): {}", m_transport->describe(), what);
        } catch (...) { // NOLINT(bugprone-empty-catch): logging must not end the read
        }
    }
}

bool IpmiSensor::fresh(double bmc_stamp) {
    const auto now = std::chrono::steady_clock::now();
    if (bmc_stamp == 0 || bmc_stamp != m_last_stamp) { // 0: this BMC stamps nothing
        m_last_stamp = bmc_stamp;
        m_stamp_moved = now;
        return true;
    }
    if (now - m_stamp_moved <= stale_after()) {
        return true;
    }
    trouble(fmt::format("stale reading: the BMC's timestamp has not moved for {}",
                        format_duration(std::chrono::duration_cast<Nanos>(now - m_stamp_moved))));
    return false;
}

Value IpmiSensor::read_xcc() {
    auto reply = m_transport->call(xcc_energy_request());
    auto e = reply ? parse_xcc_energy(*reply) : std::unexpected(reply.error());
    if (!e) {
        trouble(e.error().message());
        return {0, ReadStatus::retry};
    }
    if (!fresh(e->timestamp)) {
        return {0, ReadStatus::retry};
    }
    return {e->joules, ReadStatus::ok};
}

Value IpmiSensor::read_dcmi() {
    auto reply = m_transport->call(dcmi_power_request());
    auto p = reply ? parse_dcmi_power(*reply) : std::unexpected(reply.error());
    if (!p) {
        trouble(p.error().message());
        return {0, ReadStatus::retry};
    }
    if (!p->measurement_active) {
        trouble("DCMI power measurement is not active on the BMC (its reading is not a "
                "measurement)");
        return {0, ReadStatus::retry};
    }
    if (!fresh(p->timestamp)) {
        return {0, ReadStatus::retry};
    }
    return {static_cast<double>(p->current_watts), ReadStatus::ok};
}

Value IpmiSensor::read_sdr() {
    auto w = read_watts(*m_transport, *m_sdr);
    if (!w) {
        trouble(w.error().message());
        return {0, ReadStatus::retry};
    }
    return {*w, ReadStatus::ok};
}

void IpmiSensor::read(std::span<Value> out) noexcept {
    if (out.empty()) {
        return;
    }
    try {
        Value v;
        switch (m_source) {
        case Source::xcc:
            v = read_xcc();
            break;
        case Source::dcmi:
            v = read_dcmi();
            break;
        case Source::sdr:
            v = m_sdr ? read_sdr() : Value{0, ReadStatus::fatal};
            break;
        }
        if (v.status == ReadStatus::ok) {
            m_warned = false;
        }
        out[0] = v;
    } catch (...) {
        out[0] = {0, ReadStatus::retry};
    }
}

} // namespace jp::sensors::ipmi
