// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/jouleprofd/daemon_sensor.hpp"

#include "core/clock.hpp"
#include "core/duration.hpp"
#include "core/log.hpp"
#include "daemon_client/json_field.hpp"
#include "sensors/jouleprofd/readings.hpp"

#include <algorithm>
#include <thread>

namespace jp::sensors::jouleprofd {

DaemonSensor::DaemonSensor(std::unique_ptr<daemon::Client> client,
                           std::string session,
                           std::vector<Channel> channels,
                           std::vector<int> daemon_index)
    : m_client(std::move(client)), m_session(std::move(session)), m_channels(std::move(channels)),
      m_daemon_index(std::move(daemon_index)), m_latest(m_channels.size()),
      m_call_ns(m_channels.size(), 0) {
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

// Throws nlohmann::json::exception for a malformed event (the client drops it).
void DaemonSensor::on_event(const nlohmann::json& e) {
    if (e.value("event", "") != "samples" || e.value("session", "") != m_session) {
        return;
    }
    const auto readings = stream_readings(e, m_session, m_client->hello().clock_offset_ns);
    const std::lock_guard lock{m_mutex};
    for (const auto& r : readings) {
        const int slot = slot_of(r.channel);
        if (slot < 0) {
            continue;
        }
        auto& l = m_latest[static_cast<std::size_t>(slot)];
        if (r.t_ns > l.t_ns) {
            l = Latest{r.value, r.t_ns, true};
        }
    }
    const auto lost = daemon::integer_field(e, "lost", 0, 0, INT64_MAX).value_or(0);
    if (lost > 0 && !m_said_lost) {
        m_said_lost = true;
        JP_LOG_WARN("jouleprofd: {} readings were dropped before they reached this client "
                    "(it read them too slowly)",
                    lost);
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
            out[i] = value_of(i, l.value, l.t_ns);
            l.fresh = false;
        } else {
            out[i] = Value{0, ReadStatus::retry, 0};
        }
    }
}

Value DaemonSensor::value_of(std::size_t slot, double value, std::int64_t t_ns) const noexcept {
    Value v{value, ReadStatus::ok, t_ns};
    v.call_ns = m_call_ns[slot];
    return v;
}

void DaemonSensor::take_values(const nlohmann::json& reply, std::span<Value> out) {
    // First: a value of this reply was taken in a call the reply counts.
    for (const auto& [channel, ns] : reply_read_times(reply)) {
        if (const int slot = slot_of(channel); slot >= 0) {
            auto& c = m_call_ns[static_cast<std::size_t>(slot)];
            c = std::max(c, ns);
        }
    }
    for (const auto& r : reply_readings(reply, m_client->hello().clock_offset_ns)) {
        const int slot = slot_of(r.channel);
        if (slot < 0) {
            continue;
        }
        const auto i = static_cast<std::size_t>(slot);
        if (!out.empty()) {
            out[i] = value_of(i, r.value, r.t_ns);
        }
        if (r.t_ns > m_latest[i].t_ns) {
            m_latest[i] = Latest{r.value, r.t_ns, out.empty()};
        }
    }
}

std::expected<daemon::LedgerReply, std::string> DaemonSensor::ledger(
    std::int64_t from_ns, std::int64_t to_ns, const daemon::LedgerGroups& groups) noexcept {
    return query_ledger(*m_client, m_session, from_ns, to_ns, groups);
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

// {"t_ns": T, "values": [[channel, t_ns, value], ...]}; the first edge asked for is
// the start, every later one an end.
void DaemonSensor::read_edge(std::span<Value> out) noexcept {
    std::ranges::fill(out, Value{0, ReadStatus::retry});
    const char* edge = m_edges++ == 0 ? "start" : "end";
    try {
        auto r = m_client->call({{"op", "read"}, {"session", m_session}, {"edge", edge}},
                                k_call_timeout);
        // Users outside the full-resolution groups get exact reads at least the
        // floor apart: an edge that came sooner waits for it (an end edge: the window
        // then ends after the job instead of stopping short of it; a start edge does
        // so only within the floor of the daemon's own start).
        if (!r && r.error().code == daemon::ErrorCode::too_soon && r.error().retry_after_ms > 0 &&
            r.error().retry_after_ms <= k_longest_wait.count()) {
            JP_LOG_WARN("jouleprofd: {}: the {} edge waits {} ms{}", r.error().message, edge,
                        r.error().retry_after_ms,
                        m_edges > 1 ? "; this run's energy is interpolated from exact reads that "
                                      "far apart (ask your admin for full resolution)"
                                    : "");
            std::this_thread::sleep_for(std::chrono::milliseconds{r.error().retry_after_ms});
            r = m_client->call({{"op", "read"}, {"session", m_session}, {"edge", edge}},
                               k_call_timeout);
        }
        if (r) {
            if (const auto reused = r->find("reused_ns"); reused != r->end() && !m_said_reused) {
                m_said_reused = true;
                JP_LOG_WARN("jouleprofd: the start edge is your exact read of {} ago (users "
                            "outside the full-resolution groups get exact reads at least the "
                            "floor apart); this run's energy is interpolated from it",
                            format_duration(Nanos{reused->get<std::int64_t>()}));
            }
            const std::lock_guard lock{m_mutex};
            take_values(*r, out);
            return;
        }
        if (r.error().code == daemon::ErrorCode::rate_limited ||
            r.error().code == daemon::ErrorCode::too_soon) {
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
