// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// jouleprofd's I/O: one epoll loop on one thread serves the Unix socket's
// clients, the optional /metrics listener, a tick timer (history, floored
// windows, streams, dead clients) and the signals (SIGTERM/SIGINT stop,
// SIGHUP reloads [access]). The sampler's threads are the only others.
#include "daemon/connection.hpp"
#include "daemon/handlers.hpp"

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>

namespace jp::daemon {

class Server {
public:
    // Listens on the configured socket (and Prometheus address); SIGTERM,
    // SIGINT and SIGHUP must already be blocked in every thread.
    // reload_path: the file SIGHUP reads again (empty: none).
    static Result<std::unique_ptr<Server>>
    create(DaemonConfig config, std::unique_ptr<Engine> engine, std::filesystem::path reload_path);
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;
    Server(Server&&) = delete;
    Server& operator=(Server&&) = delete;
    ~Server();

    // Serves until SIGTERM or SIGINT.
    void run();

private:
    Server(DaemonConfig config, std::unique_ptr<Engine> engine, std::filesystem::path reload_path);
    Result<void> listen();
    void watch(int fd, std::uint64_t key, std::uint32_t events) const;
    void accept_all(int listen_fd, Connection::Kind kind);
    [[nodiscard]] bool take_http_peer(Connection& c); // false: refused and closed
    void on_event(std::uint64_t key, std::uint32_t events);
    void read_client(Connection& c);
    void serve_requests(Connection& c, std::int64_t now);
    void serve_ready();
    void read_http(Connection& c);
    void after_io(Connection& c);
    void drop(std::uint64_t id, std::string_view why);
    void tick();
    void on_signals();
    void reload();
    void stop();
    // Connections of a kind (and of one uid, and of one HTTP peer key, when given).
    [[nodiscard]] std::size_t count(Connection::Kind kind,
                                    std::optional<uid_t> uid = std::nullopt,
                                    std::string_view http_peer = {}) const;

    std::unique_ptr<Engine> m_engine;
    DaemonState m_state;
    std::filesystem::path m_reload_path;
    sys::UniqueFd m_epoll, m_listen, m_http_listen, m_timer, m_signals;
    std::map<std::uint64_t, std::unique_ptr<Connection>> m_conns;
    std::set<std::uint64_t> m_ready; // connections with requests waiting for their turn
    // Out of descriptors: the socket's [0] and /metrics' [1] listener rest until a tick.
    std::array<bool, 2> m_accept_paused{};
    bool m_tcp_owners = false;    // the kernel names the local user of a /metrics connection
    std::uint64_t m_next_id = 16; // ids below are the fixed descriptors
    std::int64_t m_last_reap = 0;
    bool m_stop = false;
};

} // namespace jp::daemon
