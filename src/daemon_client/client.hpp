// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A connection to jouleprofd: the hello handshake, request/reply calls and the
// daemon's stream events, read by one background thread. Thread-safe: any
// thread may call(); events are handed to one handler on the reader thread.
#include "core/duration.hpp"
#include "daemon_client/hello.hpp"
#include "daemon_client/wire.hpp"
#include "sys/fd.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <sys/types.h>
#include <thread>

namespace jp::daemon {

// A failed call: the daemon's error reply, or a transport failure (no code).
struct CallError {
    std::optional<ErrorCode> code; // absent: the connection failed or timed out
    std::string message;
    std::int64_t retry_after_ms = 0; // rate_limited: when the next exact read is allowed
};

// A daemon socket is trusted when root serves it, or the user itself (a daemon a
// user starts for tests or on a laptop): another user's server could feed made-up
// readings, so the client refuses it before sending anything.
[[nodiscard]] bool trusted_daemon_uid(uid_t server, uid_t self) noexcept;

class Client {
public:
    using EventHandler = std::function<void(const nlohmann::json& event)>;

    // Connects and says hello. Errors: no daemon (not_found), connection
    // refused, a socket served by neither root nor this user (nothing is sent),
    // the daemon denied this user, no common protocol version.
    static std::expected<std::unique_ptr<Client>, CallError>
    connect(const std::filesystem::path& socket, Nanos timeout);
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;
    Client(Client&&) = delete;
    Client& operator=(Client&&) = delete;
    ~Client();

    // Sends request (an "id" is added) and waits up to timeout for the reply.
    std::expected<nlohmann::json, CallError> call(nlohmann::json request, Nanos timeout);
    // The same, sent again while the daemon says rate_limited, after the wait it names (at
    // most a second each), until the wait it names would end past patience from now (then
    // its refusal at once). The last call may take its timeout beyond the patience.
    std::expected<nlohmann::json, CallError>
    call_patiently(const nlohmann::json& request, Nanos timeout, Nanos patience);
    // Receives every event (stream samples, closing); set before the first stream.
    void on_event(EventHandler handler);
    // False once the daemon closed the connection or it failed.
    [[nodiscard]] bool alive() const noexcept { return m_alive.load(); }
    [[nodiscard]] const HelloInfo& hello() const noexcept { return m_hello; }
    [[nodiscard]] const std::filesystem::path& socket() const noexcept { return m_socket; }

private:
    Client(sys::UniqueFd fd, std::filesystem::path socket);
    std::expected<void, CallError> handshake(Nanos timeout);
    void reader();
    // The daemon's refusal of this connection, if it sent one (m_mutex held).
    [[nodiscard]] std::optional<CallError> refusal_locked() const;
    void dispatch(std::string_view line);

    sys::UniqueFd m_fd;
    std::filesystem::path m_socket;
    HelloInfo m_hello;
    std::mutex m_send_mutex;
    std::mutex m_mutex; // m_replies, m_handler
    std::condition_variable m_replied;
    std::map<std::int64_t, nlohmann::json> m_replies;
    std::set<std::int64_t> m_abandoned; // calls that timed out: their replies are dropped
    std::int64_t m_next_id = 1;
    EventHandler m_handler;
    std::atomic<bool> m_alive{true};
    std::thread m_reader;
};

} // namespace jp::daemon
