// SPDX-License-Identifier: BSD-3-Clause
// The server's accept path: new connections, the limits that refuse them at once
// (all users, one user, /metrics scrapes), and the rest a listener takes when the
// daemon is out of descriptors.
#include "core/clock.hpp"
#include "core/log.hpp"
#include "daemon/http.hpp"
#include "daemon/server.hpp"
#include "sys/proc.hpp"
#include "sys/tcp_peer.hpp"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <sys/epoll.h>
#include <sys/socket.h>

namespace jp::daemon {
namespace {

// Connections accepted in one turn of the loop: a user who connects and hangs up in
// a loop must not keep it here (the listener is level-triggered: the rest comes next).
constexpr int k_accepts_per_turn = 64;

// The listener a kind of connection comes from: [0] the socket, [1] /metrics.
std::size_t listener_of(Connection::Kind kind) {
    return kind == Connection::Kind::client ? 0 : 1;
}

// Answered at once and closed (fd goes out of scope), never left waiting.
void refuse_now(const sys::UniqueFd& fd, std::string_view msg) {
    (void)::send(fd.get(), msg.data(), msg.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

} // namespace

std::size_t
Server::count(Connection::Kind kind, std::optional<uid_t> uid, std::string_view http_peer) const {
    std::size_t n = 0;
    for (const auto& [id, c] : m_conns) {
        n += c->kind == kind && (!uid || c->peer.uid == *uid) &&
                     (http_peer.empty() || c->http_peer == http_peer)
                 ? 1U
                 : 0U;
    }
    return n;
}

// A scrape's slot counts against its peer: the local user who connected (the kernel
// knows the connecting socket's owner) or, for a remote peer, its address. One local
// user reopening half-sent requests then holds at most its share of the pool, and the
// scraper (another user, or another host) still gets in.
bool Server::take_http_peer(Connection& c) {
    const auto per_peer = static_cast<std::size_t>(m_state.config.daemon.prometheus_max_per_peer);
    auto peer = sys::tcp_peer(c.fd.get(), m_tcp_owners);
    if (!peer) { // gone before it was accepted
        return false;
    }
    c.http_peer = peer->key();
    if (!m_tcp_owners && peer->local) {
        return true; // local users cannot be told apart: rationed as one pool (said at start)
    }
    const auto held = count(Connection::Kind::http, std::nullopt, c.http_peer);
    if (held >= per_peer) {
        refuse_now(c.fd, http_response(503, "text/plain",
                                       fmt::format("{} has {} scrapes open, the most one peer may "
                                                   "have ([prometheus] "
                                                   "max_connections_per_peer)\n",
                                                   c.http_peer, held)));
        return false;
    }
    return true;
}

void Server::accept_all(int listen_fd, Connection::Kind kind) {
    const auto& cfg = m_state.config.daemon;
    const auto mine = listener_of(kind);
    for (int accepted = 0; accepted < k_accepts_per_turn; ++accepted) {
        sys::UniqueFd fd{::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)};
        if (!fd) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                // The connection waits in the backlog; the listener rests until the next
                // tick instead of waking the loop for it again and again.
                if (!m_accept_paused[0] && !m_accept_paused[1]) {
                    JP_LOG_WARN("accept: {}: new connections wait until descriptors are free "
                                "(said once until one is accepted again)",
                                std::strerror(errno));
                }
                m_accept_paused[mine] = true;
                ::epoll_ctl(m_epoll.get(), EPOLL_CTL_DEL, listen_fd, nullptr);
            } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
                       errno != ECONNABORTED) {
                JP_LOG_WARN("accept: {}", std::strerror(errno));
            }
            return;
        }
        if (m_accept_paused[mine]) {
            if (!m_accept_paused[1 - mine]) {
                JP_LOG_INFO("accepting connections again");
            }
            m_accept_paused[mine] = false;
        }
        const bool client = kind == Connection::Kind::client;
        const auto limit = client ? static_cast<std::size_t>(cfg.max_clients)
                                  : static_cast<std::size_t>(cfg.prometheus_max_connections);
        if (count(kind) >= limit) {
            refuse_now(fd, client ? refusal_line(ErrorCode::too_many_sessions,
                                                 "jouleprofd serves no more clients right now")
                                  : http_response(503, "text/plain", "too many scrapes\n"));
            continue;
        }
        auto c =
            std::make_unique<Connection>(m_next_id++, std::move(fd), kind, k_max_request_bytes);
        c->partial_since_ns = client ? 0 : mono_ns(); // an HTTP request must come in time
        if (!client && !take_http_peer(*c)) {
            continue;
        }
        if (client) {
            auto peer = sys::peer_credentials(c->fd.get());
            if (!peer) {
                JP_LOG_WARN("a client without credentials: {}", peer.error().message());
                continue;
            }
            // One user cannot take every connection: root is not counted.
            if (peer->uid != 0 &&
                count(kind, peer->uid) >= static_cast<std::size_t>(cfg.max_clients_per_user)) {
                refuse_now(c->fd, refusal_line(ErrorCode::too_many_sessions,
                                               fmt::format("uid {} has {} connections to "
                                                           "jouleprofd open, the most one user may "
                                                           "have ([daemon] max_clients_per_user)",
                                                           peer->uid, cfg.max_clients_per_user)));
                continue;
            }
            c->peer_start_time = sys::process_start_time(peer->pid);
            c->peer = std::move(*peer);
            ++m_state.clients;
        }
        c->registered = EPOLLIN | EPOLLRDHUP;
        watch(c->fd.get(), c->id, c->registered);
        m_conns.emplace(c->id, std::move(c));
    }
}

} // namespace jp::daemon
