// SPDX-License-Identifier: BSD-3-Clause
#include "markers/server.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "sys/thread_name.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace jp::markers {
namespace {

constexpr std::string_view k_socket_name = "/marker.sock";
constexpr std::string_view k_dir_template = "/jouleprof-XXXXXX";
constexpr std::int64_t k_reported_rejections = 5;

// $TMPDIR when the socket path fits in sockaddr_un there, else /tmp.
std::string temp_base() {
    const char* env = std::getenv("TMPDIR");
    std::string base = env != nullptr && *env == '/' ? env : "";
    while (base.size() > 1 && base.back() == '/') {
        base.pop_back();
    }
    const std::size_t limit = sizeof(sockaddr_un::sun_path);
    if (base.empty() || base.size() + k_dir_template.size() + k_socket_name.size() >= limit) {
        base = "/tmp";
    }
    return base;
}

} // namespace

Server::Server(std::int64_t epoch, Sink sink) : m_epoch(epoch), m_sink(std::move(sink)) {}

Result<std::unique_ptr<Server>> Server::start(std::int64_t epoch_mono_ns, Sink sink) {
    std::unique_ptr<Server> s{new Server(epoch_mono_ns, std::move(sink))};
    std::string dir = temp_base() + std::string{k_dir_template};
    if (::mkdtemp(dir.data()) == nullptr) { // mode 0700: only this user can reach the socket
        return std::unexpected(errno_error(errno, "marker socket directory " + dir));
    }
    s->m_dir = dir;
    s->m_socket_path = dir + std::string{k_socket_name};
    s->m_fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s->m_fd < 0) {
        return std::unexpected(errno_error(errno, "marker socket"));
    }
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, s->m_socket_path.c_str(), s->m_socket_path.size() + 1);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
    if (::bind(s->m_fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        return std::unexpected(errno_error(errno, "bind " + s->m_socket_path));
    }
    // The kernel then attaches each sender's credentials (SCM_CREDENTIALS).
    const int on = 1;
    ::setsockopt(s->m_fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    if (::pipe2(s->m_wake, O_CLOEXEC) != 0) {
        return std::unexpected(errno_error(errno, "pipe2"));
    }
    s->m_thread = std::thread([p = s.get()] { p->loop(); });
    return s;
}

Server::~Server() {
    if (m_thread.joinable()) {
        const char byte = 1;
        (void)(::write(m_wake[1], &byte, 1) == 0);
        m_thread.join();
    }
    for (int fd : {m_fd, m_wake[0], m_wake[1]}) {
        if (fd >= 0) {
            ::close(fd);
        }
    }
    if (!m_socket_path.empty()) {
        ::unlink(m_socket_path.c_str());
    }
    if (!m_dir.empty()) {
        ::rmdir(m_dir.c_str());
    }
}

void Server::loop() {
    sys::name_this_thread("jp-markers");
    std::array<pollfd, 2> fds{pollfd{m_fd, POLLIN, 0}, pollfd{m_wake[0], POLLIN, 0}};
    for (;;) {
        const int n = ::poll(fds.data(), fds.size(), -1);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            JP_LOG_ERROR("markers: poll: {}", std::strerror(errno));
            return;
        }
        if (fds[1].revents != 0) {
            return;
        }
        if (fds[0].revents != 0) {
            const std::lock_guard lock{m_mutex};
            receive_all_locked();
        }
    }
}

void Server::receive_all_locked() {
    for (;;) {
        std::array<char, k_max_message + 64> buf{};
        alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(ucred))> control{};
        iovec iov{buf.data(), buf.size()};
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.data();
        msg.msg_controllen = control.size();
        const ssize_t n = ::recvmsg(m_fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return; // EAGAIN: the queue is empty
        }
        std::optional<unsigned> uid;
        for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
                ucred cred{};
                std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
                uid = cred.uid;
            }
        }
        handle_locked(std::string_view{buf.data(), static_cast<std::size_t>(n)},
                      (msg.msg_flags & MSG_TRUNC) != 0, uid);
    }
}

void Server::handle_locked(std::string_view datagram, bool truncated, std::optional<unsigned> uid) {
    if (uid && *uid != ::geteuid()) {
        reject_locked(fmt::format("from uid {}, not the job's user", *uid));
        return;
    }
    if (truncated) {
        reject_locked("message too long");
        return;
    }
    auto msg = parse_message(datagram);
    if (!msg) {
        reject_locked(msg.error());
        return;
    }
    if (!m_open) {
        reject_locked(fmt::format("'{}' arrived outside a measured run", msg->name));
        return;
    }
    const std::int64_t upper = m_end ? *m_end : mono_ns();
    if (msg->t_mono_ns < m_start - k_slack_ns || msg->t_mono_ns > upper + k_slack_ns) {
        reject_locked(fmt::format("'{}' is stamped outside the run (another clock?)", msg->name));
        return;
    }
    const std::int64_t t = std::clamp(msg->t_mono_ns, m_start, std::max(m_start, upper));
    ++m_counts.accepted;
    m_sink(msg->kind, t - m_epoch, std::move(msg->name));
}

void Server::reject_locked(const std::string& why) {
    ++m_counts.rejected;
    if (m_counts.rejected <= k_reported_rejections) {
        JP_LOG_WARN("marker ignored: {}{}", why,
                    m_counts.rejected == k_reported_rejections ? " (further ones not reported)"
                                                               : "");
    }
}

void Server::open_run(std::int64_t start_mono_ns) {
    const std::lock_guard lock{m_mutex};
    receive_all_locked(); // anything left from between runs is rejected
    m_open = true;
    m_start = start_mono_ns;
    m_end.reset();
}

void Server::close_run(std::int64_t end_mono_ns) {
    const std::lock_guard lock{m_mutex};
    m_end = end_mono_ns;
    receive_all_locked();
    m_open = false;
}

Server::Counts Server::counts() const {
    const std::lock_guard lock{m_mutex};
    return m_counts;
}

} // namespace jp::markers
