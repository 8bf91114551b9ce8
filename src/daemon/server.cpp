// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/server.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "daemon/http.hpp"
#include "daemon/metrics.hpp"
#include "daemon/serve.hpp"
#include "sys/tcp_peer.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

namespace jp::daemon {
namespace {

enum FixedKey : std::uint64_t { k_listen = 1, k_http_listen = 2, k_timer = 3, k_signals = 4 };

constexpr std::int64_t k_reap_every_ns = 1'000'000'000;
constexpr std::int64_t k_http_timeout_ns = 5'000'000'000;
constexpr std::size_t k_read_chunk = std::size_t{64} * 1024;

// Streams and floored windows need no finer tick than this.
Nanos tick_of(Nanos interval) {
    return std::clamp(interval, Nanos{std::chrono::milliseconds{10}},
                      Nanos{std::chrono::milliseconds{100}});
}

} // namespace

Server::Server(DaemonConfig config,
               std::unique_ptr<Engine> engine,
               std::filesystem::path reload_path)
    : m_engine(std::move(engine)),
      // The rations and the accounts as DaemonState sets them.
      m_state{std::move(config), *m_engine, {}, {}, {}, mono_ns(), 0},
      m_reload_path(std::move(reload_path)) {
    // Ended jobs are forgotten on the floor's grid (daemon/ledger.hpp).
    m_state.sessions.set_ledger_grid(m_state.config.access.floor.count(), mono_ns());
    const auto& daemon = m_state.config.daemon;
    if (daemon.prometheus_per_job) {
        AccountsSettings s;
        s.max_jobs = static_cast<std::size_t>(daemon.prometheus_per_job_max);
        s.keep = daemon.prometheus_per_job_keep;
        // Every window is split (they come a floor apart at least), but never more often
        // than a tick where the floor is shorter.
        s.min_period = std::max(Nanos{std::chrono::milliseconds{100}}, m_state.config.access.floor);
        s.sysfs_root = m_state.config.sensors.sysfs_root.value_or("/");
        m_state.accounts = std::make_unique<Accounts>(std::move(s), m_engine->channels());
    }
}

Server::~Server() {
    if (m_listen) {
        ::unlink(m_state.config.daemon.socket.c_str());
    }
}

Result<std::unique_ptr<Server>> Server::create(DaemonConfig config,
                                               std::unique_ptr<Engine> engine,
                                               std::filesystem::path reload_path) {
    std::unique_ptr<Server> s{
        new Server(std::move(config), std::move(engine), std::move(reload_path))};
    if (auto r = s->listen(); !r) {
        return std::unexpected(r.error());
    }
    return s;
}

Result<void> Server::listen() {
    const auto& cfg = m_state.config.daemon;
    m_epoll.reset(::epoll_create1(EPOLL_CLOEXEC));
    if (!m_epoll) {
        return std::unexpected(errno_error(errno, "epoll_create1"));
    }
    auto sock = sys::listen_unix(cfg.socket, 0666, SOMAXCONN);
    if (!sock) {
        return std::unexpected(sock.error());
    }
    m_listen = std::move(*sock);
    watch(m_listen.get(), k_listen, EPOLLIN);
    if (cfg.prometheus_listen) {
        auto http = sys::listen_tcp(*cfg.prometheus_listen, 64);
        if (!http) {
            return std::unexpected(http.error());
        }
        m_http_listen = std::move(*http);
        watch(m_http_listen.get(), k_http_listen, EPOLLIN);
        if (auto works = sys::tcp_owner_lookup_works(m_http_listen.get()); works) {
            m_tcp_owners = true;
        } else {
            JP_LOG_WARN("/metrics: the kernel cannot say which local user connected ({}): "
                        "local scrapes share the pool of {} unrationed, remote addresses "
                        "get {} each",
                        works.error().message(), cfg.prometheus_max_connections,
                        cfg.prometheus_max_per_peer);
        }
    }
    m_timer.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
    const auto tick = tick_of(m_engine->base_interval()).count();
    const timespec period{static_cast<time_t>(tick / 1'000'000'000),
                          static_cast<long>(tick % 1'000'000'000)};
    const itimerspec spec{period, period};
    if (!m_timer || ::timerfd_settime(m_timer.get(), 0, &spec, nullptr) != 0) {
        return std::unexpected(errno_error(errno, "timerfd"));
    }
    watch(m_timer.get(), k_timer, EPOLLIN);
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
        sigaddset(&set, sig);
    }
    m_signals.reset(::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC));
    if (!m_signals) {
        return std::unexpected(errno_error(errno, "signalfd"));
    }
    watch(m_signals.get(), k_signals, EPOLLIN);
    return {};
}

void Server::watch(int fd, std::uint64_t key, std::uint32_t events) const {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = key;
    if (::epoll_ctl(m_epoll.get(), EPOLL_CTL_ADD, fd, &ev) != 0 && errno == EEXIST) {
        ::epoll_ctl(m_epoll.get(), EPOLL_CTL_MOD, fd, &ev);
    }
}

void Server::run() {
    std::array<epoll_event, 256> events{};
    while (!m_stop) {
        // Connections with requests waiting their turn: look at the sockets, don't wait.
        const int n = ::epoll_wait(m_epoll.get(), events.data(), static_cast<int>(events.size()),
                                   m_ready.empty() ? -1 : 0);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            JP_LOG_ERROR("epoll_wait: {}", std::strerror(errno));
            break;
        }
        for (int i = 0; i < n && !m_stop; ++i) {
            on_event(events[static_cast<std::size_t>(i)].data.u64,
                     events[static_cast<std::size_t>(i)].events);
        }
        serve_ready();
    }
    stop();
}

void Server::serve_ready() {
    const auto ready = std::exchange(m_ready, {});
    for (const auto id : ready) {
        if (const auto it = m_conns.find(id); it != m_conns.end() && !m_stop) {
            serve_requests(*it->second, mono_ns());
        }
    }
}

void Server::on_event(std::uint64_t key, std::uint32_t events) {
    switch (key) {
    case k_listen:
        accept_all(m_listen.get(), Connection::Kind::client);
        return;
    case k_http_listen:
        accept_all(m_http_listen.get(), Connection::Kind::http);
        return;
    case k_timer:
        tick();
        return;
    case k_signals:
        on_signals();
        return;
    default:
        break;
    }
    const auto it = m_conns.find(key);
    if (it == m_conns.end()) {
        return;
    }
    Connection& c = *it->second;
    if ((events & EPOLLOUT) != 0 && !c.flush()) {
        drop(key, "the client went away");
        return;
    }
    if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP)) != 0) {
        if (c.kind == Connection::Kind::client) {
            read_client(c);
        } else {
            read_http(c);
        }
        return;
    }
    after_io(c);
}

void Server::read_client(Connection& c) {
    char buf[k_read_chunk];
    const auto now = mono_ns();
    const auto n = ::recv(c.fd.get(), buf, sizeof buf, MSG_DONTWAIT);
    if (n == 0) {
        c.closing = true; // it sends no more: what it asked is answered, then it is closed
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        drop(c.id, "");
        return;
    }
    if (n > 0) {
        c.in.append({buf, static_cast<std::size_t>(n)});
    }
    serve_requests(c, now);
}

// Serves the requests received, a turn's worth (serve.hpp), then registers for
// what the connection can take next.
void Server::serve_requests(Connection& c, std::int64_t now) {
    (void)serve_turn(m_state, c, now);
    after_io(c);
}

void Server::read_http(Connection& c) {
    char buf[k_read_chunk];
    const auto n = ::recv(c.fd.get(), buf, sizeof buf, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        drop(c.id, "");
        return;
    }
    if (n > 0 && !c.closing) {
        c.raw.append(buf, static_cast<std::size_t>(n));
        if (auto parsed = parse_http_request(c.raw)) {
            c.closing = true;
            if (!parsed->request) {
                c.send(http_response(parsed->status, "text/plain", "bad request\n"));
            } else if (parsed->request->method != "GET" && parsed->request->method != "HEAD") {
                c.send(http_response(405, "text/plain", "only GET\n"));
            } else if (parsed->request->path == "/metrics") {
                c.send(http_response(200, "text/plain; version=0.0.4; charset=utf-8",
                                     metrics_text(m_state, mono_ns())));
            } else if (parsed->request->path == "/") {
                c.send(http_response(200, "text/plain", "jouleprofd: metrics at /metrics\n"));
            } else {
                c.send(http_response(404, "text/plain", "not found: try /metrics\n"));
            }
        }
    }
    after_io(c);
}

// Registers for what the connection can take now: input only while no request
// waits and the replies fit under the high mark, output while replies wait.
// Closes what is done or too slow.
void Server::after_io(Connection& c) {
    if (c.pending_out() > c.max_pending_out) {
        drop(c.id, "it did not read its replies (too slow)");
        return;
    }
    const bool waiting = c.kind == Connection::Kind::client && !c.closing && c.in.has_line();
    if (c.closing && c.pending_out() == 0 && !waiting) {
        drop(c.id, "");
        return;
    }
    const bool room = c.pending_out() < c.out_high;
    if (waiting && room) {
        m_ready.insert(c.id);
    }
    std::uint32_t events = 0;
    if (!c.closing && !waiting && room) {
        events |= EPOLLIN | EPOLLRDHUP;
    }
    if (c.pending_out() > 0) {
        events |= EPOLLOUT;
    }
    if (events != c.registered) {
        c.registered = events;
        watch(c.fd.get(), c.id, events);
    }
}

void Server::drop(std::uint64_t id, std::string_view why) {
    const auto it = m_conns.find(id);
    if (it == m_conns.end()) {
        return;
    }
    Connection& c = *it->second;
    if (c.kind == Connection::Kind::client) {
        --m_state.clients;
        const auto closed = m_state.sessions.close_connection(id);
        if (!why.empty() || closed > 0) {
            JP_LOG_INFO("client pid {} uid {} left{}{}", c.peer.pid, c.peer.uid,
                        why.empty() ? "" : ": ", why);
        }
    }
    ::epoll_ctl(m_epoll.get(), EPOLL_CTL_DEL, c.fd.get(), nullptr);
    m_ready.erase(id);
    m_conns.erase(it);
}

void Server::tick() {
    std::uint64_t expirations = 0;
    (void)(::read(m_timer.get(), &expirations, sizeof expirations) == 0);
    const auto now = mono_ns();
    // Descriptors may be free again: each resting listener tries its backlog once more.
    if (m_accept_paused[0]) {
        watch(m_listen.get(), k_listen, EPOLLIN);
    }
    if (m_accept_paused[1] && m_http_listen) {
        watch(m_http_listen.get(), k_http_listen, EPOLLIN);
    }
    m_engine->tick(now);
    feed_accounts(m_state, now);
    std::vector<std::pair<std::uint64_t, std::string>> events;
    m_state.sessions.for_each([&](Session& s) {
        if (s.stream_interval_ns > 0 && m_conns.contains(s.stream_connection)) {
            if (auto event = stream_event(m_state, s, now); !event.empty()) {
                events.emplace_back(s.stream_connection, std::move(event));
            }
        }
    });
    for (const auto& [id, event] : events) { // sends may drop connections (and their sessions)
        if (const auto it = m_conns.find(id); it != m_conns.end()) {
            it->second->send(event);
            after_io(*it->second);
        }
    }
    std::vector<std::uint64_t> late;
    const auto timeout = m_state.config.daemon.client_timeout.count();
    for (auto& [id, c] : m_conns) {
        const auto limit = c->kind == Connection::Kind::http ? k_http_timeout_ns : timeout;
        const bool stalled_request = c->partial_since_ns != 0 && now - c->partial_since_ns > limit;
        if (stalled_request || c->pending_out() > c->max_pending_out) {
            late.push_back(id);
        }
    }
    for (auto id : late) {
        drop(id, "a request left unfinished, or replies left unread, too long");
    }
    if (now - m_last_reap >= k_reap_every_ns) {
        m_last_reap = now;
        for (const auto& id : m_state.sessions.reap_dead()) {
            JP_LOG_INFO("session {} ended: its process is gone", id);
        }
    }
}

} // namespace jp::daemon
