// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Channels served by jouleprofd for what this user cannot read directly.
// Between edges, read() hands out the latest values the daemon streamed (with
// the daemon's own timestamps); at a job's edges, read_edge() asks for an exact
// reading, which the daemon may limit in rate: then the latest streamed values
// stand in, and the sampler records how old they were.
#include "daemon_client/client.hpp"
#include "sensors/jouleprofd/ledger_query.hpp"
#include "sensors/sensor.hpp"

#include <mutex>
#include <vector>

namespace jp::sensors::jouleprofd {

class DaemonSensor final : public Sensor {
public:
    // daemon_index[i]: the daemon's index of channels[i].
    DaemonSensor(std::unique_ptr<daemon::Client> client,
                 std::string session,
                 std::vector<Channel> channels,
                 std::vector<int> daemon_index);
    ~DaemonSensor() override;
    DaemonSensor(const DaemonSensor&) = delete;
    DaemonSensor& operator=(const DaemonSensor&) = delete;
    DaemonSensor(DaemonSensor&&) = delete;
    DaemonSensor& operator=(DaemonSensor&&) = delete;

    std::string_view backend() const noexcept override { return "jouleprofd"; }
    std::span<const Channel> channels() const noexcept override { return m_channels; }
    Nanos min_interval() const noexcept override;
    void read(std::span<Value> out) noexcept override;
    void read_edge(std::span<Value> out) noexcept override;
    void prepare(Nanos interval) override;
    // The daemon's ledger view for this session over [from_ns, to_ns] (our clock).
    [[nodiscard]] std::expected<daemon::LedgerReply, std::string>
    ledger(std::int64_t from_ns, std::int64_t to_ns, const daemon::LedgerGroups& groups) noexcept;

    static constexpr Nanos k_call_timeout{std::chrono::seconds{2}};
    // The longest an end edge waits for the daemon's floor between exact reads.
    static constexpr std::chrono::milliseconds k_longest_wait{std::chrono::seconds{5}};

private:
    struct Latest {
        double value = 0;
        std::int64_t t_ns = 0; // our CLOCK_MONOTONIC
        bool fresh = false;    // not handed out by read() yet
    };
    void on_event(const nlohmann::json& event);
    void fetch_latest() noexcept; // one "latest" call, when no stream runs
    // Values of a read or latest reply ([[channel, t_ns, value], ...]) into out
    // (when given) and into m_latest (fresh unless they went to out), and the daemon's
    // read calls the reply gives (read_ns) into m_call_ns. Holds m_mutex.
    void take_values(const nlohmann::json& reply, std::span<Value> out);
    void fill(std::span<Value> out, bool consume_any) noexcept;
    // An ok value with its time and the longest read call the daemon said it made for it.
    [[nodiscard]] Value value_of(std::size_t slot, double value, std::int64_t t_ns) const noexcept;
    [[nodiscard]] int slot_of(int daemon_index) const noexcept;

    std::unique_ptr<daemon::Client> m_client;
    std::string m_session;
    std::vector<Channel> m_channels;
    std::vector<int> m_daemon_index;
    std::mutex m_mutex;
    std::vector<Latest> m_latest;
    std::vector<std::int64_t> m_call_ns; // per channel: the daemon's longest read call (ns)
    bool m_streaming = false;
    bool m_said_rate_limit = false;
    bool m_said_reused = false;
    int m_edges = 0; // edges asked for so far: the first is the start
    bool m_said_lost = false;
    bool m_said_gone = false;
};

} // namespace jp::sensors::jouleprofd
