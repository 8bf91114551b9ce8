// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One client of the daemon: its socket, who it is (from the kernel), the
// request bytes received so far and the reply bytes not yet sent. Both
// directions are bounded: a request longer than the protocol allows, a
// request left half-sent too long, or a client that stops reading its
// replies gets the connection closed, never the daemon blocked; a client
// that pipelines requests without reading the replies is not read from
// until it does (docs/security.md, "Robustness against clients").
#include "daemon/access.hpp"
#include "daemon_client/wire.hpp"
#include "sys/fd.hpp"
#include "sys/socket.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace jp::daemon {

struct Connection {
    enum class Kind : std::uint8_t { client, http };

    Connection(std::uint64_t id_, sys::UniqueFd fd_, Kind kind_, std::size_t request_limit)
        : id(id_), fd(std::move(fd_)), kind(kind_), in(request_limit) {}

    std::uint64_t id;
    sys::UniqueFd fd;
    Kind kind;
    sys::PeerCredentials peer; // clients only
    std::string http_peer;     // HTTP only: whom its slot counts against (sys::TcpPeer::key)
    // When peer.pid started, read as the connection was accepted: a session opened later is
    // the connecting process's only while that pid still names it.
    std::optional<std::uint64_t> peer_start_time;
    Grant grant = Grant::denied;
    bool said_hello = false;
    LineReader in;                     // clients: request lines
    std::string raw;                   // HTTP: the request so far
    std::int64_t partial_since_ns = 0; // a request begun and not finished since then; 0: none
    std::string out;
    std::size_t out_sent = 0;
    bool closing = false;         // close once out is sent; nothing more is read or served
    bool said_too_large = false;  // the refusal of an oversized request is queued
    std::uint32_t registered = 0; // the epoll events it is registered for

    // Requests are served only while fewer reply bytes than this wait unread:
    // past it the connection is neither read nor served until the client reads.
    static constexpr std::size_t k_out_high = std::size_t{256} * 1024;
    // Past this (the high mark plus one reply, which is bounded) it is closed.
    static constexpr std::size_t k_max_pending_out = std::size_t{4} * 1024 * 1024;
    // Requests served for one connection in one turn of the event loop: a client
    // that pipelines thousands waits its turn behind the others.
    static constexpr int k_requests_per_turn = 32;
    // Sent bytes are dropped from the front of `out` once this many have gone.
    static constexpr std::size_t k_compact_after = std::size_t{64} * 1024;

    // The bounds above, per connection (a test or fuzz target makes them small).
    std::size_t out_high = k_out_high;
    std::size_t max_pending_out = k_max_pending_out;

    void queue(std::string_view bytes) { out.append(bytes); }
    // Queues bytes and sends what the socket takes; a peer that is gone gets the
    // connection marked closing and nothing more queued for it.
    void send(std::string_view bytes);
    [[nodiscard]] std::size_t pending_out() const noexcept { return out.size() - out_sent; }
    // Sends what the socket takes now. False when the peer is gone.
    bool flush();
};

} // namespace jp::daemon
