// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/ipmi/lan_udp.hpp"

#include <cerrno>
#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace jp::sensors::ipmi {

std::string host_port(const std::string& host, int port) {
    if (host.find(':') != std::string::npos) {
        return fmt::format("[{}]:{}", host, port);
    }
    return fmt::format("{}:{}", host, port);
}

Result<UdpPeer> UdpPeer::connect(const std::string& host, int port) {
    const std::string where = "IPMI LAN " + host_port(host, port);
    if (port <= 0 || port > 65535) {
        return fail(ErrorKind::config, where, fmt::format("port {} out of range", port),
                    "set ipmi.port to the BMC's RMCP+ port (623 unless changed)");
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
    if (rc != 0) {
        return fail(ErrorKind::not_found, where, ::gai_strerror(rc),
                    "check ipmi.host: it must be the BMC's address or a name that resolves");
    }
    int err = 0;
    for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
        sys::UniqueFd fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
        if (!fd) {
            err = errno;
            continue;
        }
        if (::connect(fd.get(), a->ai_addr, a->ai_addrlen) == 0) {
            ::freeaddrinfo(found);
            return UdpPeer(std::move(fd));
        }
        err = errno;
    }
    ::freeaddrinfo(found);
    return std::unexpected(errno_error(err, where));
}

Result<void> UdpPeer::send(rmcp::ByteView datagram) const {
    if (::send(m_fd.get(), datagram.data(), datagram.size(), MSG_NOSIGNAL) < 0 &&
        errno != ECONNREFUSED) {
        return std::unexpected(errno_error(errno, "send"));
    }
    return {};
}

Result<std::optional<rmcp::Bytes>> UdpPeer::receive(Clock::time_point deadline) const {
    for (;;) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            return std::optional<rmcp::Bytes>{};
        }
        pollfd p{m_fd.get(), POLLIN, 0};
        const int n = ::poll(&p, 1, static_cast<int>(left.count()));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return std::unexpected(errno_error(errno, "poll"));
        }
        if (n == 0) {
            return std::optional<rmcp::Bytes>{};
        }
        rmcp::Bytes buf(2048);
        const ssize_t got = ::recv(m_fd.get(), buf.data(), buf.size(), 0);
        if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == ECONNREFUSED)) {
            // ECONNREFUSED: an ICMP port-unreachable; keep waiting as for silence.
            continue;
        }
        if (got < 0) {
            return std::unexpected(errno_error(errno, "recv"));
        }
        buf.resize(static_cast<std::size_t>(got));
        return std::optional<rmcp::Bytes>{std::move(buf)};
    }
}

void UdpPeer::drain() const {
    std::uint8_t buf[2048];
    while (::recv(m_fd.get(), buf, sizeof buf, MSG_DONTWAIT) >= 0 || errno == ECONNREFUSED) {
    }
}

} // namespace jp::sensors::ipmi
