// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Job sessions: opened by a client, owned by the uid the kernel vouched for,
// tied to the opening connection and to the client's process (pid and start
// time, so a reused pid is not the same client). Only the owner and root may
// use one; it ends with its connection, its process, or a close.
#include "daemon/access.hpp"
#include "daemon/ledger.hpp"
#include "sys/socket.hpp"

#include <cstdint>
#include <expected>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace jp::daemon {

struct MarkerEntry {
    std::int64_t t_ns = 0; // CLOCK_MONOTONIC
    std::string kind;      // begin | end | point
    std::string name;
};

struct Session {
    std::string id; // 32 hex digits, random
    std::uint64_t connection = 0;
    sys::PeerCredentials owner;
    std::optional<std::uint64_t> start_time; // of owner.pid; absent when /proc does not show it
    Grant grant = Grant::floor;
    std::string label;
    std::int64_t opened_ns = 0;
    std::vector<MarkerEntry> markers;
    std::size_t marker_bytes = 0; // what the markers take, counted against the owner
    std::uint64_t exact_reads = 0;
    // Streaming: pushed on stream_connection every stream_interval_ns.
    std::uint64_t stream_connection = 0;
    std::int64_t stream_interval_ns = 0; // 0: not streaming
    std::int64_t next_push_ns = 0;
    std::uint64_t pushes = 0;
    std::vector<std::uint64_t> next_seq; // per channel: the next reading to send
};

class SessionTable {
public:
    static constexpr std::size_t k_max_markers = 100'000;
    // Markers one user (not root) may hold in all its sessions, in bytes.
    static constexpr std::size_t k_max_marker_bytes_per_user = std::size_t{16} * 1024 * 1024;

    // A new session; too_many_sessions when the owner (not root) has
    // max_per_user open already.
    // start_time: when owner.pid started, as read when it connected.
    std::expected<Session*, std::string> open(std::uint64_t connection,
                                              const sys::PeerCredentials& owner,
                                              std::optional<std::uint64_t> start_time,
                                              Grant grant,
                                              std::string label,
                                              std::int64_t now_ns,
                                              int max_per_user);
    [[nodiscard]] Session* find(std::string_view id);
    // The bytes of markers uid's open sessions hold.
    [[nodiscard]] std::size_t marker_bytes_of(uid_t uid) const;
    bool close(std::string_view id);
    // Closes the sessions opened on a connection; returns how many.
    std::size_t close_connection(std::uint64_t connection);
    // Closes the sessions whose process is gone or whose pid now names
    // another process; returns their ids.
    std::vector<std::string> reap_dead();

    [[nodiscard]] std::size_t size() const noexcept { return m_sessions.size(); }
    [[nodiscard]] std::size_t count_for(uid_t uid) const;
    void for_each(const std::function<void(Session&)>& fn);
    // Who held which CPUs while each session was open (daemon/ledger.hpp).
    [[nodiscard]] const Ledger& ledger() const noexcept { return m_ledger; }
    void set_ledger_grid(std::int64_t floor_ns, std::int64_t now_ns) {
        m_ledger.set_grid(floor_ns, now_ns);
    }

private:
    std::map<std::string, Session, std::less<>> m_sessions;
    Ledger m_ledger;
};

// Whether a caller may use a session: its owner or root.
[[nodiscard]] bool may_use(const Session& s, uid_t caller) noexcept;

} // namespace jp::daemon
