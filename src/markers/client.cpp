// SPDX-License-Identifier: BSD-3-Clause
#include "markers/client.hpp"

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace jp::markers {
namespace {

std::int64_t now_mono() noexcept {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

const char* socket_env() noexcept {
    const char* path = std::getenv(k_env_socket);
    return path != nullptr && *path != '\0' ? path : nullptr;
}

// Writes the message into buf without allocating; returns its length.
std::size_t format_into(char (&buf)[k_max_message + 1],
                        Kind kind,
                        std::int64_t t,
                        std::string_view name) noexcept {
    std::size_t n = 0;
    auto put = [&](std::string_view s) {
        std::memcpy(buf + n, s.data(), s.size());
        n += s.size();
    };
    put("jp1 ");
    put(to_string(kind));
    put(" ");
    char digits[24];
    std::size_t d = 0;
    auto v = static_cast<std::uint64_t>(t < 0 ? 0 : t);
    do {
        digits[d++] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (d > 0) {
        buf[n++] = digits[--d];
    }
    put(" ");
    put(name);
    return n;
}

} // namespace

bool active() noexcept {
    return socket_env() != nullptr;
}

int send_mark(Kind kind, std::string_view name) noexcept {
    const std::int64_t t = now_mono(); // the moment of the call, before any work
    const char* path = socket_env();
    if (path == nullptr) {
        // Outside a run the arguments are checked all the same, so a job learns of a bad
        // name on the desk, not first under measurement; nothing else is done.
        if (name.size() > k_max_name) {
            return -ENAMETOOLONG;
        }
        return name_problem(name) != nullptr ? -EINVAL : k_inactive;
    }
    return send_mark_to(path, kind, name, t);
}

int send_mark_to(const char* socket_path,
                 Kind kind,
                 std::string_view name,
                 std::int64_t t_mono_ns) noexcept {
    if (name.size() > k_max_name) {
        return -ENAMETOOLONG;
    }
    if (name_problem(name) != nullptr) {
        return -EINVAL;
    }
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::size_t path_len = std::strlen(socket_path);
    if (path_len == 0 || path_len >= sizeof addr.sun_path) {
        return -ENAMETOOLONG;
    }
    std::memcpy(addr.sun_path, socket_path, path_len + 1);
    char buf[k_max_message + 1];
    const std::size_t len = format_into(buf, kind, t_mono_ns, name);

    const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -errno;
    }
    // A full queue (the monitor busy) may delay the job a little, never hang it.
    timeval timeout{k_send_timeout_ms / 1000,
                    static_cast<suseconds_t>((k_send_timeout_ms % 1000) * 1000)};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    ssize_t sent = 0;
    do {
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
        sent = ::sendto(fd, buf, len, MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&addr),
                        sizeof addr);
    } while (sent < 0 && errno == EINTR);
    const int err = sent < 0 ? errno : 0;
    ::close(fd);
    if (err != 0) {
        return err == EWOULDBLOCK ? -EAGAIN : -err;
    }
    return sent == static_cast<ssize_t>(len) ? k_sent : -EMSGSIZE;
}

} // namespace jp::markers
