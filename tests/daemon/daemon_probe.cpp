// SPDX-License-Identifier: BSD-3-Clause
// A raw protocol client for tests (and for looking at a daemon by hand): relays
// stdin lines to jouleprofd's socket and prints every line the daemon sends.
//   daemon_probe SOCKET        first prints "pid N", exits when the daemon closes
// After stdin ends, it half-closes the socket and prints what is still coming.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace {

bool write_all(int fd, const char* p, std::size_t n) {
    while (n > 0) {
        const auto w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return false;
        }
        p += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fputs("usage: daemon_probe SOCKET\n", stderr);
        return 2;
    }
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, argv[1], sizeof addr.sun_path - 1);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        std::printf("connect failed: %s\n", std::strerror(errno));
        return 1;
    }
    std::printf("pid %d\n", static_cast<int>(::getpid()));
    std::fflush(stdout);
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {fd, POLLIN, 0}};
    char buf[65536];
    while (true) {
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            return 1;
        }
        if ((fds[0].revents & (POLLIN | POLLHUP)) != 0) {
            const auto n = ::read(STDIN_FILENO, buf, sizeof buf);
            if (n <= 0) {
                ::shutdown(fd, SHUT_WR);
                fds[0].fd = -1;
            } else if (!write_all(fd, buf, static_cast<std::size_t>(n))) {
                return 1;
            }
        }
        if ((fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
            const auto n = ::recv(fd, buf, sizeof buf, 0);
            if (n <= 0) {
                return 0;
            }
            if (!write_all(STDOUT_FILENO, buf, static_cast<std::size_t>(n))) {
                return 1;
            }
        }
    }
}
