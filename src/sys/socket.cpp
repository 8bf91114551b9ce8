// SPDX-License-Identifier: BSD-3-Clause
#include "sys/socket.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fmt/format.h>
#include <memory>
#include <netdb.h>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

namespace jp::sys {
namespace {

Result<sockaddr_un> unix_address(const std::filesystem::path& path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const auto& s = path.native();
    if (s.empty() || s.size() >= sizeof addr.sun_path) {
        return fail(
            ErrorKind::config, s,
            fmt::format("a socket path must be 1 to {} bytes long", sizeof addr.sun_path - 1));
    }
    std::memcpy(addr.sun_path, s.c_str(), s.size() + 1);
    return addr;
}

// NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
const sockaddr* as_sockaddr(const sockaddr_un& a) {
    return reinterpret_cast<const sockaddr*>(&a);
}
// NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)

// A socket file nobody answers on is a dead server's: remove it.
Result<void> clear_stale(const std::filesystem::path& path, const sockaddr_un& addr) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        return errno == ENOENT ? Result<void>{}
                               : std::unexpected(errno_error(errno, path.string()));
    }
    if (!S_ISSOCK(st.st_mode)) {
        return fail(ErrorKind::config, path.string(),
                    "exists and is not a socket: not replacing it");
    }
    UniqueFd probe{::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)};
    if (probe && ::connect(probe.get(), as_sockaddr(addr), sizeof addr) == 0) {
        return fail(ErrorKind::config, path.string(),
                    "another server is listening on this socket (is jouleprofd already running?)");
    }
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
        return std::unexpected(errno_error(errno, "remove stale socket " + path.string()));
    }
    return {};
}

} // namespace

Result<UniqueFd> listen_unix(const std::filesystem::path& path, mode_t mode, int backlog) {
    auto addr = unix_address(path);
    if (!addr) {
        return std::unexpected(addr.error());
    }
    if (auto r = clear_stale(path, *addr); !r) {
        return std::unexpected(r.error());
    }
    UniqueFd fd{::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)};
    if (!fd) {
        return std::unexpected(errno_error(errno, "socket"));
    }
    if (::bind(fd.get(), as_sockaddr(*addr), sizeof *addr) != 0) {
        return std::unexpected(errno_error(errno, "bind " + path.string()));
    }
    if (::chmod(path.c_str(), mode) != 0 || ::listen(fd.get(), backlog) != 0) {
        const int err = errno;
        ::unlink(path.c_str());
        return std::unexpected(errno_error(err, "listen " + path.string()));
    }
    return fd;
}

Result<UniqueFd> connect_unix(const std::filesystem::path& path, Nanos timeout) {
    auto addr = unix_address(path);
    if (!addr) {
        return std::unexpected(addr.error());
    }
    UniqueFd fd{::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)};
    if (!fd) {
        return std::unexpected(errno_error(errno, "socket"));
    }
    // A Unix connect blocks while the server's backlog is full: bounded by SO_SNDTIMEO.
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(timeout).count();
    timeval tv{static_cast<time_t>(us / 1'000'000), static_cast<suseconds_t>(us % 1'000'000)};
    ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (::connect(fd.get(), as_sockaddr(*addr), sizeof *addr) != 0) {
        const int err = errno == EINPROGRESS || errno == EAGAIN ? ETIMEDOUT : errno;
        return std::unexpected(errno_error(err, "connect " + path.string()));
    }
    return fd;
}

Result<UniqueFd> listen_tcp(std::string_view host_port, int backlog) {
    const auto colon = host_port.rfind(':');
    std::string host{host_port.substr(0, colon == std::string_view::npos ? 0 : colon)};
    const auto port_text = colon == std::string_view::npos ? "" : host_port.substr(colon + 1);
    unsigned port = 0;
    const auto [ptr, ec] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (host.empty() || ec != std::errc{} || ptr != port_text.data() + port_text.size() ||
        port == 0 || port > 65535) {
        return fail(ErrorKind::config, std::string{host_port},
                    "must be HOST:PORT, e.g. 127.0.0.1:9940 or [::1]:9940");
    }
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo* found = nullptr;
    if (const int rc = ::getaddrinfo(host.c_str(), std::string{port_text}.c_str(), &hints, &found);
        rc != 0) {
        return fail(ErrorKind::config, std::string{host_port}, ::gai_strerror(rc));
    }
    std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list{found, ::freeaddrinfo};
    UniqueFd fd{::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)};
    if (!fd) {
        return std::unexpected(errno_error(errno, "socket"));
    }
    const int on = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (::bind(fd.get(), found->ai_addr, found->ai_addrlen) != 0 ||
        ::listen(fd.get(), backlog) != 0) {
        return std::unexpected(errno_error(errno, "listen on " + std::string{host_port}));
    }
    return fd;
}

Result<PeerCredentials> peer_credentials(int fd) {
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        return std::unexpected(errno_error(errno, "SO_PEERCRED"));
    }
    PeerCredentials out{cred.pid, cred.uid, cred.gid, {}};
    std::vector<gid_t> groups(64);
    for (int attempt = 0; attempt < 3; ++attempt) {
        len = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
        if (::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &len) == 0) {
            groups.resize(len / sizeof(gid_t));
            out.groups = std::move(groups);
            return out;
        }
        if (errno != ERANGE) {
            return std::unexpected(errno_error(errno, "SO_PEERGROUPS"));
        }
        groups.resize(len / sizeof(gid_t) + 1); // the kernel said how many
    }
    return fail(ErrorKind::io, "SO_PEERGROUPS", "the peer's group list kept growing");
}

Result<void> send_all(int fd, std::string_view data) {
    while (!data.empty()) {
        const auto n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return std::unexpected(errno_error(errno, "send"));
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return {};
}

} // namespace jp::sys
