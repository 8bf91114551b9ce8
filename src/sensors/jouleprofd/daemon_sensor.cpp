// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/jouleprofd/daemon_sensor.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"

#include <algorithm>

namespace jp::sensors::jouleprofd {

DaemonSensor::DaemonSensor(std::unique_ptr<daemon::Client> client,
                           std::string session,
                           std::vector<Channel> channels,
                           std::vector<int> daemon_index)
    : m_client(std::move(client)), m_session(std::move(session)), m_channels(std::move(channels)),
      m_daemon_index(std::move(daemon_index)), m_latest(m_channels.size()) {
    m_client->on_event([this](const nlohmann::json& e) { on_event(e); });
}

DaemonSensor::~DaemonSensor() {
    if (m_client->alive()) {
        (void)m_client->call({{"op", "close"}, {"session", m_session}}, k_call_timeout);
    }
    m_client->on_event({});
}

Nanos DaemonSensor::min_interval() const noexcept {
    const auto& h = m_client->hello();
    return std::max(h.access == "full" ? h.interval : h.floor, Nanos{std::chrono::milliseconds{1}});
}

std::int64_t DaemonSensor::local_time(std::int64_t daemon_ns) const noexcept {
    return daemon_ns - m_client->hello().clock_offset_ns;
}

int DaemonSensor::slot_of(int daemon_index) const noexcept {
    const auto it = std::ranges::find(m_daemon_index, daemon_index);
    return it == m_daemon_index.end() ? -1 : static_cast<int>(it - m_daemon_index.begin());
}

void DaemonSensor::prepare(Nanos interval) {
    const auto ms = std::max<std::int64_t>(
        1, std::chrono::duration_cast<std::chrono::milliseconds>(interval).count());
    auto r = m_client->call({{"op", "stream"}, {"session", m_session}, {"interval_ms", ms}},
                            k_call_timeout);
    if (!r) {
        JP_LOG_WARN("jouleprofd: cannot stream readings ({}); reading them on demand instead",
                    r.error().message);
        return;
    }
    const std::lock_guard lock{m_mutex};
    m_streaming = true;
}

// {"event":"samples","session":S,"data":[[channel, first_seq, t0, v0, t1, v1, ...], ...]}
void DaemonSensor::on_event(const nlohmann::json& e) {
    if (e.value("event", "") != "samples" || e.value("session", "") != m_session) {
        return;
    }
    const auto data = e.find("data");
    if (data == e.end() || !data->is_array()) {
        return;
    }
    const std::lock_guard lock{m_mutex};
    for (const auto& row : *data) {
        if (!row.is_array() || row.size() < 4 || !row[0].is_number_integer()) {
            continue;
        }
        const int slot = slot_of(row[0].get<int>());
        const std::size_t last = row.size() - 2; // the newest (t, v) pair
        if (slot < 0 || !row[last].is_number() || !row[last + 1].is_number()) {
            continue;
        }
        auto& l = m_latest[static_cast<std::size_t>(slot)];
        const auto t = local_time(row[last].get<std::int64_t>());
        if (t > l.t_ns) {
            l = Latest{row[last + 1].get<double>(), t, true};
        }
    }
    if (e.value("lost", 0) > 0 && !m_said_lost) {
        m_said_lost = true;
        JP_LOG_WARN("jouleprofd: {} readings were dropped before they reached this client "
                    "(it read them too slowly)",
                    e.value("lost", 0));
    }
}

void DaemonSensor::fill(std::span<Value> out, bool consume_any) noexcept {
    const bool alive = m_client->alive();
    if (!alive && !m_said_gone) {
        m_said_gone = true;
        JP_LOG_WARN("jouleprofd closed the connection: {} channel{} measured through it {} lost "
                    "from here on (the job goes on)",
                    m_channels.size(), m_channels.size() == 1 ? "" : "s",
                    m_channels.size() == 1 ? "is" : "are");
    }
    for (std::size_t i = 0; i < out.size() && i < m_latest.size(); ++i) {
        auto& l = m_latest[i];
        if (!alive && !l.fresh) {
            out[i] = Value{0, ReadStatus::gone, 0};
        } else if (l.fresh || (consume_any && l.t_ns > 0)) {
            out[i] = Value{l.value, ReadStatus::ok, l.t_ns};
            l.fresh = false;
        } else {
            out[i] = Value{0, ReadStatus::retry, 0};
        }
    }
}

void DaemonSensor::take_values(const nlohmann::json& reply, std::span<Value> out) {
    for (const auto& v : reply.value("values", nlohmann::json::array())) {
        const int slot = v.is_array() && v.size() == 3 ? slot_of(v[0].get<int>()) : -1;
        if (slot < 0) {
            continue;
        }
        const auto i = static_cast<std::size_t>(slot);
        const Latest l{v[2].get<double>(), local_time(v[1].get<std::int64_t>()), true};
        if (!out.empty()) {
            out[i] = Value{l.value, ReadStatus::ok, l.t_ns};
        }
        if (l.t_ns > m_latest[i].t_ns) {
            m_latest[i] = Latest{l.value, l.t_ns, out.empty()};
        }
    }
}

void DaemonSensor::fetch_latest() noexcept {
    try {
        auto r = m_client->call({{"op", "latest"}, {"session", m_session}}, k_call_timeout);
        if (r) {
            const std::lock_guard lock{m_mutex};
            take_values(*r, {});
        }
    } catch (const std::exception& e) {
        JP_LOG_DEBUG("jouleprofd: bad latest reply: {}", e.what());
    }
}

void DaemonSensor::read(std::span<Value> out) noexcept {
    bool streaming = false;
    {
        const std::lock_guard lock{m_mutex};
        streaming = m_streaming;
    }
    if (!streaming && m_client->alive()) {
        fetch_latest();
    }
    const std::lock_guard lock{m_mutex};
    fill(out, false);
}

// {"t_ns": T, "values": [[channel, t_ns, value], ...]}
void DaemonSensor::read_edge(std::span<Value> out) noexcept {
    std::ranges::fill(out, Value{0, ReadStatus::retry});
    try {
        auto r = m_client->call({{"op", "read"}, {"session", m_session}}, k_call_timeout);
        if (r) {
            const std::lock_guard lock{m_mutex};
            take_values(*r, out);
            return;
        }
        if (r.error().code == daemon::ErrorCode::rate_limited) {
            const std::lock_guard lock{m_mutex};
            if (!m_said_rate_limit) {
                m_said_rate_limit = true;
                JP_LOG_WARN("jouleprofd: {}; this run's edges use the daemon's latest floored "
                            "readings instead (ask your admin for full resolution)",
                            r.error().message);
            }
        } else {
            JP_LOG_WARN("jouleprofd: an exact read failed: {}", r.error().message);
        }
    } catch (const std::exception& e) {
        JP_LOG_WARN("jouleprofd: bad reply to an exact read: {}", e.what());
    }
    const std::lock_guard lock{m_mutex};
    fill(out, true);
}

} // namespace jp::sensors::jouleprofd
