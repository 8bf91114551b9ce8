// SPDX-License-Identifier: BSD-3-Clause
#include "daemon_client/client.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "daemon_client/json_field.hpp"
#include "jp_version.hpp"
#include "sys/socket.hpp"
#include "sys/thread_name.hpp"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <fmt/format.h>
#include <optional>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace jp::daemon {
namespace {

// Replies and events are far larger than requests may be (a channel list).
constexpr std::size_t k_max_reply_bytes = std::size_t{64} * 1024 * 1024;

CallError transport_error(std::string message) {
    return CallError{std::nullopt, std::move(message), 0};
}

} // namespace

bool trusted_daemon_uid(uid_t server, uid_t self) noexcept {
    return server == 0 || server == self;
}

Client::Client(sys::UniqueFd fd, std::filesystem::path socket)
    : m_fd(std::move(fd)), m_socket(std::move(socket)) {
    m_reader = std::thread([this] { reader(); });
}

Client::~Client() {
    ::shutdown(m_fd.get(), SHUT_RDWR); // the reader's recv returns 0
    if (m_reader.joinable()) {
        m_reader.join();
    }
}

std::expected<std::unique_ptr<Client>, CallError>
Client::connect(const std::filesystem::path& socket, Nanos timeout) {
    auto fd = sys::connect_unix(socket, timeout);
    if (!fd) {
        return std::unexpected(transport_error(fd.error().message()));
    }
    // Nothing is sent before the server is known to be one whose readings we may trust:
    // root's daemon, or one this user started (who could fake any reading anyway).
    auto peer = sys::peer_credentials(fd->get());
    if (!peer) {
        return std::unexpected(transport_error(peer.error().message()));
    }
    if (!trusted_daemon_uid(peer->uid, ::geteuid())) {
        return std::unexpected(transport_error(fmt::format(
            "{} is served by uid {} (pid {}), not by root: not a jouleprofd to trust, nothing sent",
            socket.string(), peer->uid, peer->pid)));
    }
    std::unique_ptr<Client> c{new Client(std::move(*fd), socket)};
    if (auto r = c->handshake(timeout); !r) {
        return std::unexpected(r.error());
    }
    return c;
}

std::expected<void, CallError> Client::handshake(Nanos timeout) {
    const auto before = mono_ns();
    auto r = call({{"op", "hello"},
                   {"versions", {k_protocol_version}},
                   {"client", fmt::format("jouleprof {}", JP_VERSION)}},
                  timeout);
    const auto after = mono_ns();
    if (!r) {
        return std::unexpected(r.error());
    }
    auto hello = parse_hello(*r, before, after);
    if (!hello) {
        return std::unexpected(transport_error(hello.error()));
    }
    m_hello = std::move(*hello);
    if (m_hello.version != k_protocol_version) {
        return std::unexpected(
            transport_error(fmt::format("jouleprofd speaks protocol version {}, this client {}",
                                        m_hello.version, k_protocol_version)));
    }
    return {};
}

std::expected<nlohmann::json, CallError>
Client::call_patiently(const nlohmann::json& request, Nanos timeout, Nanos patience) {
    const auto give_up = mono_ns() + patience.count();
    for (;;) {
        auto r = call(request, timeout);
        if (r || r.error().code != ErrorCode::rate_limited || r.error().retry_after_ms <= 0) {
            return r;
        }
        // A wait the daemon names past the patience: refused now, not after asking again.
        const auto left_ms = (give_up - mono_ns()) / 1'000'000;
        if (r.error().retry_after_ms > left_ms) {
            return r;
        }
        std::this_thread::sleep_for(
            std::chrono::milliseconds{std::min<std::int64_t>(r.error().retry_after_ms, 1000)});
    }
}

std::expected<nlohmann::json, CallError> Client::call(nlohmann::json request, Nanos timeout) {
    std::int64_t id = 0;
    {
        const std::lock_guard lock{m_mutex};
        id = m_next_id++;
    }
    request["id"] = id;
    const auto line = request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::optional<std::string> send_failed;
    {
        const std::lock_guard lock{m_send_mutex};
        if (!m_alive.load()) {
            send_failed = "the connection to jouleprofd is closed";
        } else if (auto sent = sys::send_all(m_fd.get(), line); !sent) {
            send_failed = "jouleprofd: " + sent.error().detail;
        }
    }
    if (send_failed) {
        // The daemon may have refused this connection and closed it before our first
        // request: its refusal, once the reader has it (it ends with the connection), says why.
        std::unique_lock lock{m_mutex};
        m_replied.wait_for(lock, std::min<Nanos>(timeout, std::chrono::seconds{1}),
                           [&] { return !m_alive.load(); });
        if (auto refused = refusal_locked()) {
            return std::unexpected(std::move(*refused));
        }
        return std::unexpected(transport_error(*send_failed));
    }
    std::unique_lock lock{m_mutex};
    const bool got = m_replied.wait_for(lock, timeout,
                                        [&] { return m_replies.contains(id) || !m_alive.load(); });
    auto it = m_replies.find(id);
    if (it == m_replies.end() && !m_alive.load()) {
        if (auto refused = refusal_locked()) {
            return std::unexpected(std::move(*refused));
        }
    }
    if (it == m_replies.end()) {
        m_abandoned.insert(id);
        return std::unexpected(transport_error(
            got ? "jouleprofd closed the connection"
                : fmt::format("jouleprofd did not answer within {}", format_duration(timeout))));
    }
    nlohmann::json reply = std::move(it->second);
    m_replies.erase(it);
    lock.unlock();
    try {
        if (!reply.value("ok", false)) {
            return std::unexpected(
                CallError{error_code_from_string(reply.value("error", "internal")),
                          reply.value("message", "jouleprofd refused the request"),
                          integer_field(reply, "retry_after_ms", 0, -1, INT64_MAX).value_or(0)});
        }
    } catch (const nlohmann::json::exception&) {
        return std::unexpected(transport_error("jouleprofd sent a malformed reply"));
    }
    return reply;
}

std::optional<CallError> Client::refusal_locked() const {
    // A refusal the daemon sent before closing (at its connection limits) answers no
    // request: it has no id. Its words say why, better than "closed".
    const auto it = m_replies.find(0);
    try {
        if (it != m_replies.end() && !it->second.value("ok", true)) {
            const auto& r = it->second;
            return CallError{error_code_from_string(r.value("error", "internal")),
                             "jouleprofd: " + r.value("message", std::string{"refused"}), 0};
        }
    } catch (const nlohmann::json::exception&) {
        return std::nullopt; // malformed: "closed" is all we know
    }
    return std::nullopt;
}

void Client::on_event(EventHandler handler) {
    const std::lock_guard lock{m_mutex};
    m_handler = std::move(handler);
}

void Client::reader() {
    sys::name_this_thread("jp-jpd-client");
    LineReader lines{k_max_reply_bytes};
    char buf[65536];
    while (true) {
        const auto n = ::recv(m_fd.get(), buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        lines.append({buf, static_cast<std::size_t>(n)});
        while (auto line = lines.next()) {
            dispatch(*line);
        }
        if (lines.oversized()) {
            break;
        }
    }
    {
        const std::lock_guard send_lock{m_send_mutex};
        const std::lock_guard lock{m_mutex};
        m_alive = false;
    }
    m_replied.notify_all();
}

void Client::dispatch(std::string_view line) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) {
        return; // a daemon never sends this; ignoring it keeps the connection usable
    }
    if (j.contains("event")) {
        EventHandler handler;
        {
            const std::lock_guard lock{m_mutex};
            handler = m_handler;
        }
        if (handler) {
            try {
                handler(j);
            } catch (const std::exception& e) { // a malformed event is dropped, never fatal
                JP_LOG_DEBUG("jouleprofd: an event was dropped: {}", e.what());
            }
        }
        return;
    }
    const auto idv = j.find("id");
    const auto id = idv != j.end() && idv->is_number_integer() ? idv->get<std::int64_t>() : 0;
    {
        const std::lock_guard lock{m_mutex};
        if (m_abandoned.erase(id) == 0) {
            m_replies[id] = std::move(j);
        }
    }
    m_replied.notify_all();
}

} // namespace jp::daemon
