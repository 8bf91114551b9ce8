// SPDX-License-Identifier: BSD-3-Clause
#include "sys/tcp_peer.hpp"

#include "sys/fd.hpp"

#include <arpa/inet.h>
#include <array>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

namespace jp::sys {
namespace {

// NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API's casts
const sockaddr_in& v4(const sockaddr_storage& s) {
    return reinterpret_cast<const sockaddr_in&>(s);
}
const sockaddr_in6& v6(const sockaddr_storage& s) {
    return reinterpret_cast<const sockaddr_in6&>(s);
}
sockaddr_in& v4(sockaddr_storage& s) {
    return reinterpret_cast<sockaddr_in&>(s);
}
sockaddr* as_sockaddr(sockaddr_storage& s) {
    return reinterpret_cast<sockaddr*>(&s);
}
// NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)

// A v4-mapped v6 address (a v4 client of a [::] listener) as the v4 address it is: the
// connecting socket is a v4 one, and the kernel looks it up as such.
sockaddr_storage unmapped(const sockaddr_storage& s) {
    if (s.ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&v6(s).sin6_addr)) {
        return s;
    }
    sockaddr_storage out{};
    auto& a = v4(out);
    a.sin_family = AF_INET;
    a.sin_port = v6(s).sin6_port;
    std::memcpy(&a.sin_addr, &v6(s).sin6_addr.s6_addr[12], sizeof a.sin_addr);
    return out;
}

// The address and port as sock_diag writes them: network order, v4 in the first word.
void put(const sockaddr_storage& s, __be16& port, std::array<__be32, 4>& addr) {
    addr = {};
    if (s.ss_family == AF_INET) {
        port = v4(s).sin_port;
        std::memcpy(addr.data(), &v4(s).sin_addr, sizeof v4(s).sin_addr);
    } else {
        port = v6(s).sin6_port;
        std::memcpy(addr.data(), &v6(s).sin6_addr, sizeof v6(s).sin6_addr);
    }
}

std::string address_text(const sockaddr_storage& s) {
    std::array<char, INET6_ADDRSTRLEN> buf{};
    const void* addr = s.ss_family == AF_INET ? static_cast<const void*>(&v4(s).sin_addr)
                                              : static_cast<const void*>(&v6(s).sin6_addr);
    if (::inet_ntop(s.ss_family, addr, buf.data(), buf.size()) == nullptr) {
        return "?";
    }
    return buf.data();
}

struct DiagRequest {
    nlmsghdr header;
    inet_diag_req_v2 request;
};

bool is_mapped(const std::array<__be32, 4>& a) {
    return a[0] == 0 && a[1] == 0 && a[2] == htonl(0xffff);
}

// Whether the kernel's answer is the very socket asked for: the same four ends (a v6
// socket connected to a v4-mapped address is found by the v4 lookup but answered in its
// own, v6 form), not a listener (the lookup's fallback) nor a socket its process has
// already closed (no inode: the kernel charges those to root).
bool is_the_one(const inet_diag_msg& msg, const DiagRequest& req) {
    std::array<__be32, 4> src{};
    std::array<__be32, 4> dst{};
    std::memcpy(src.data(), static_cast<const void*>(msg.id.idiag_src), sizeof src);
    std::memcpy(dst.data(), static_cast<const void*>(msg.id.idiag_dst), sizeof dst);
    if (req.request.sdiag_family == AF_INET && msg.idiag_family == AF_INET6) {
        if (!is_mapped(src) || !is_mapped(dst)) {
            return false;
        }
        src = {src[3], 0, 0, 0};
        dst = {dst[3], 0, 0, 0};
    }
    return msg.idiag_state != TCP_LISTEN && msg.idiag_inode != 0 &&
           msg.id.idiag_sport == req.request.id.idiag_sport &&
           msg.id.idiag_dport == req.request.id.idiag_dport &&
           std::memcmp(static_cast<const void*>(req.request.id.idiag_src), src.data(),
                       sizeof src) == 0 &&
           std::memcmp(static_cast<const void*>(req.request.id.idiag_dst), dst.data(),
                       sizeof dst) == 0;
}

DiagRequest request_for(const sockaddr_storage& from, const sockaddr_storage& to) {
    DiagRequest req{};
    req.header.nlmsg_len = sizeof req;
    req.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    req.header.nlmsg_flags = NLM_F_REQUEST; // one socket by its exact id, not a dump
    req.request.sdiag_family = static_cast<__u8>(from.ss_family);
    req.request.sdiag_protocol = IPPROTO_TCP;
    req.request.idiag_states = ~0U;
    std::array<__be32, 4> src{};
    std::array<__be32, 4> dst{};
    put(from, req.request.id.idiag_sport, src);
    put(to, req.request.id.idiag_dport, dst);
    std::memcpy(static_cast<void*>(req.request.id.idiag_src), src.data(), sizeof src);
    std::memcpy(static_cast<void*>(req.request.id.idiag_dst), dst.data(), sizeof dst);
    req.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    req.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    return req;
}

// One lookup on a sock_diag socket: the kernel's answer, nullopt where it has none.
Result<std::optional<inet_diag_msg>> lookup(int nl, const DiagRequest& req) {
    if (::send(nl, &req, sizeof req, 0) != static_cast<ssize_t>(sizeof req)) {
        return std::unexpected(errno_error(errno, "sock_diag request"));
    }
    // The kernel answers a single lookup within send: nothing here waits.
    alignas(nlmsghdr) std::array<char, 8192> buf{};
    const auto n = ::recv(nl, buf.data(), buf.size(), MSG_DONTWAIT);
    if (n < static_cast<ssize_t>(sizeof(nlmsghdr))) {
        return std::unexpected(errno_error(n < 0 ? errno : EPROTO, "sock_diag answer"));
    }
    nlmsghdr head{};
    std::memcpy(&head, buf.data(), sizeof head);
    if (head.nlmsg_len > static_cast<std::uint32_t>(n)) {
        return std::unexpected(errno_error(EPROTO, "sock_diag answer"));
    }
    if (head.nlmsg_type == NLMSG_ERROR) {
        nlmsgerr err{};
        if (head.nlmsg_len < NLMSG_LENGTH(sizeof err)) {
            return std::unexpected(errno_error(EPROTO, "sock_diag answer"));
        }
        std::memcpy(&err, buf.data() + NLMSG_HDRLEN, sizeof err);
        if (err.error == -ENOENT) {
            return std::optional<inet_diag_msg>{};
        }
        return std::unexpected(errno_error(-err.error, "sock_diag lookup"));
    }
    inet_diag_msg msg{};
    if (head.nlmsg_type != SOCK_DIAG_BY_FAMILY || head.nlmsg_len < NLMSG_LENGTH(sizeof msg)) {
        return std::unexpected(errno_error(EPROTO, "sock_diag answer"));
    }
    std::memcpy(&msg, buf.data() + NLMSG_HDRLEN, sizeof msg);
    return msg;
}

Result<UniqueFd> diag_socket() {
    UniqueFd nl{::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)};
    if (!nl) {
        return std::unexpected(errno_error(errno, "sock_diag socket"));
    }
    return nl;
}

bool same_address(const sockaddr_storage& a, const sockaddr* b) {
    if (b == nullptr || b->sa_family != a.ss_family) {
        return false;
    }
    // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
    if (a.ss_family == AF_INET) {
        return std::memcmp(&v4(a).sin_addr, &reinterpret_cast<const sockaddr_in*>(b)->sin_addr,
                           sizeof(in_addr)) == 0;
    }
    return std::memcmp(&v6(a).sin6_addr, &reinterpret_cast<const sockaddr_in6*>(b)->sin6_addr,
                       sizeof(in6_addr)) == 0;
    // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
}

// The interface that holds an address of this host: its index (0: none holds it).
unsigned interface_of(const sockaddr_storage& a) {
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0) {
        return 0;
    }
    unsigned index = 0;
    for (const ifaddrs* i = list; i != nullptr && index == 0; i = i->ifa_next) {
        if (same_address(a, i->ifa_addr)) {
            index = ::if_nametoindex(i->ifa_name);
        }
    }
    ::freeifaddrs(list);
    return index;
}

bool is_loopback(const sockaddr_storage& a) {
    return a.ss_family == AF_INET ? (ntohl(v4(a).sin_addr.s_addr) >> 24) == 127
                                  : IN6_IS_ADDR_LOOPBACK(&v6(a).sin6_addr);
}

} // namespace

std::string TcpPeer::key() const {
    return uid     ? fmt::format("uid {}", *uid)
           : local ? std::string{"this host"}
                   : fmt::format("address {}", address);
}

bool is_own_address(const sockaddr_storage& a_in) {
    const auto a = unmapped(a_in);
    return is_loopback(a) || interface_of(a) != 0;
}

namespace {

// tcp_owner(), with the interface that holds from's address given (0: none).
Result<std::optional<uid_t>>
owner_on(const sockaddr_storage& from_in, const sockaddr_storage& to_in, unsigned from_device) {
    const auto from = unmapped(from_in);
    const auto to = unmapped(to_in);
    if ((from.ss_family != AF_INET && from.ss_family != AF_INET6) ||
        from.ss_family != to.ss_family) {
        return fail(ErrorKind::io, "sock_diag", "not a TCP/IP connection");
    }
    auto nl = diag_socket();
    if (!nl) {
        return std::unexpected(nl.error());
    }
    auto req = request_for(from, to);
    // A socket bound to a device (SO_BINDTODEVICE, a link-local address) is found only on
    // it: loopback, or the interface that holds from's address.
    const std::array<unsigned, 3> devices{0, ::if_nametoindex("lo"), from_device};
    for (std::size_t i = 0; i < devices.size(); ++i) {
        if ((i > 0 && devices[i] == 0) || (i == 2 && devices[2] == devices[1])) {
            continue;
        }
        req.request.id.idiag_if = devices[i];
        auto msg = lookup(nl->get(), req);
        if (!msg) {
            return std::unexpected(msg.error());
        }
        if (*msg && is_the_one(**msg, req)) {
            return std::optional<uid_t>{(*msg)->idiag_uid};
        }
    }
    return std::optional<uid_t>{};
}

} // namespace

Result<std::optional<uid_t>> tcp_owner(const sockaddr_storage& from, const sockaddr_storage& to) {
    return owner_on(from, to, interface_of(unmapped(from)));
}

Result<void> tcp_owner_lookup_works(int listen_fd) {
    sockaddr_storage local{};
    socklen_t len = sizeof local;
    if (::getsockname(listen_fd, as_sockaddr(local), &len) != 0) {
        return std::unexpected(errno_error(errno, "getsockname"));
    }
    sockaddr_storage none{};
    none.ss_family = local.ss_family;
    const auto req = request_for(local, none);
    auto nl = diag_socket();
    if (!nl) {
        return std::unexpected(nl.error());
    }
    auto msg = lookup(nl->get(), req);
    if (!msg) {
        return std::unexpected(msg.error());
    }
    if (!*msg || (*msg)->idiag_state != TCP_LISTEN ||
        (*msg)->id.idiag_sport != req.request.id.idiag_sport || (*msg)->idiag_inode == 0 ||
        (*msg)->idiag_uid != ::geteuid()) {
        return fail(ErrorKind::unsupported, "sock_diag",
                    "the kernel's TCP socket lookup did not find this listener (no tcp_diag?)");
    }
    return {};
}

Result<TcpPeer> tcp_peer(int fd, bool ask_owner) {
    sockaddr_storage peer{};
    sockaddr_storage local{};
    socklen_t peer_len = sizeof peer;
    socklen_t local_len = sizeof local;
    if (::getpeername(fd, as_sockaddr(peer), &peer_len) != 0) {
        return std::unexpected(errno_error(errno, "getpeername"));
    }
    if (::getsockname(fd, as_sockaddr(local), &local_len) != 0) {
        return std::unexpected(errno_error(errno, "getsockname"));
    }
    // This host's interfaces are listed once: whether the peer is local, and where a socket
    // bound to a device is looked for.
    const auto from = unmapped(peer);
    const auto device = interface_of(from);
    TcpPeer out{address_text(from), is_loopback(from) || device != 0, std::nullopt};
    if (ask_owner) {
        if (auto owner = owner_on(peer, local, device)) {
            out.uid = *owner;
        }
    }
    return out;
}

} // namespace jp::sys
