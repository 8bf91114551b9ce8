// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/redfish/redfish_sensor.hpp"

#include "core/log.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <optional>

namespace jp::sensors::redfish {

RedfishSensor::RedfishSensor(std::unique_ptr<Connection> connection,
                             std::vector<Channel> channels,
                             std::vector<Source> sources,
                             Nanos poll,
                             Nanos stale_after)
    : m_connection(std::move(connection)), m_channels(std::move(channels)),
      m_sources(std::move(sources)), m_fresh(m_sources.size()), m_poll(poll),
      m_stale_after(stale_after) {}

void RedfishSensor::said(const std::string& what) noexcept {
    if (!m_warned) { // once until every channel reads again, not at every poll
        m_warned = true;
        try {
            JP_LOG_WARN("redfish: {}", what);
        } catch (...) { // NOLINT(bugprone-empty-catch): logging must not end the read
        }
    }
}

bool RedfishSensor::stale(std::size_t i,
                          double value,
                          const std::string& reading_time,
                          Clock::time_point now) {
    auto& f = m_fresh[i];
    if (!f.seen || value != f.value || reading_time != f.reading_time) {
        f = Freshness{true, value, reading_time, now};
        return false;
    }
    // Without a ReadingTime a steady value is a steady load, not a stuck BMC.
    if (reading_time.empty()) {
        return false;
    }
    const auto update = Nanos{m_sources[i].update_ns.value_or(0)};
    return now - f.since > std::max(m_stale_after, 4 * update);
}

Value RedfishSensor::read_channel(std::size_t i, const std::string& body, Clock::time_point now) {
    const auto& src = m_sources[i];
    auto sample = read_source(body, src);
    if (!sample) {
        said(fmt::format("{} {}: {}", m_connection->url(src.path), label(src),
                         sample.error().detail));
        return {0, ReadStatus::retry};
    }
    if (stale(i, sample->value, sample->reading_time, now)) {
        said(fmt::format("{} {}: stale (value and ReadingTime {} unchanged for over {})",
                         m_connection->url(src.path), label(src), sample->reading_time,
                         format_duration(m_stale_after)));
        return {0, ReadStatus::retry};
    }
    return {sample->value, ReadStatus::ok};
}

void RedfishSensor::read(std::span<Value> out) noexcept {
    try {
        const auto now = Clock::now();
        std::vector<std::pair<std::string, Result<std::string>>> fetched;
        bool unreachable = false;
        bool all_ok = true;
        for (std::size_t i = 0; i < m_sources.size() && i < out.size(); ++i) {
            const auto& path = m_sources[i].path;
            auto it = std::ranges::find(fetched, path, &decltype(fetched)::value_type::first);
            if (it == fetched.end() && !unreachable) {
                fetched.emplace_back(path, m_connection->get(path));
                it = std::prev(fetched.end());
                const auto& r = it->second;
                unreachable = !r && r.error().kind == ErrorKind::io;
                if (!r) {
                    said(r.error().message());
                }
            }
            out[i] = it == fetched.end() || !it->second ? Value{0, ReadStatus::retry}
                                                        : read_channel(i, it->second.value(), now);
            all_ok = all_ok && out[i].status == ReadStatus::ok;
        }
        if (all_ok && m_warned && !m_sources.empty()) {
            m_warned = false;
            JP_LOG_INFO("redfish: {} reads again", m_connection->url(m_sources.front().path));
        }
    } catch (...) {
        for (auto& v : out) {
            v = Value{0, ReadStatus::retry};
        }
    }
}

} // namespace jp::sensors::redfish
