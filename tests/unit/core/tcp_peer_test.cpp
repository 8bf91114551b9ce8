// SPDX-License-Identifier: BSD-3-Clause
// Who connected over TCP, from the kernel: the owner of the connecting socket where it
// is on this host, by its exact addresses, never a listener that happens to sit on the
// peer's port; a peer with no socket here is known by its address.
#include "sys/fd.hpp"
#include "sys/tcp_peer.hpp"

#include <arpa/inet.h>
#include <cstring>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <optional>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace jp {
namespace {

// NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
sockaddr* as_sockaddr(sockaddr_storage& s) {
    return reinterpret_cast<sockaddr*>(&s);
}
sockaddr_in& v4(sockaddr_storage& s) {
    return reinterpret_cast<sockaddr_in&>(s);
}
// NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)

sockaddr_storage address(int family, const char* text, in_port_t port) {
    sockaddr_storage s{};
    if (family == AF_INET) {
        auto& a = v4(s);
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        EXPECT_EQ(::inet_pton(AF_INET, text, &a.sin_addr), 1);
    } else {
        sockaddr_in6 a{};
        a.sin6_family = AF_INET6;
        a.sin6_port = htons(port);
        EXPECT_EQ(::inet_pton(AF_INET6, text, &a.sin6_addr), 1);
        std::memcpy(&s, &a, sizeof a);
    }
    return s;
}

socklen_t size_of(const sockaddr_storage& s) {
    return s.ss_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
}

// A listener on an ephemeral port of `at`; its port.
sys::UniqueFd listener(sockaddr_storage at, in_port_t& port) {
    sys::UniqueFd fd{::socket(at.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)};
    EXPECT_TRUE(fd);
    EXPECT_EQ(::bind(fd.get(), as_sockaddr(at), size_of(at)), 0) << std::strerror(errno);
    EXPECT_EQ(::listen(fd.get(), 8), 0);
    socklen_t len = sizeof at;
    EXPECT_EQ(::getsockname(fd.get(), as_sockaddr(at), &len), 0);
    port = ntohs(v4(at).sin_port); // the port sits at the same offset in v4 and v6
    return fd;
}

sys::UniqueFd connect_to(sockaddr_storage to) {
    sys::UniqueFd fd{::socket(to.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)};
    EXPECT_EQ(::connect(fd.get(), as_sockaddr(to), size_of(to)), 0) << std::strerror(errno);
    return fd;
}

TEST(TcpPeer, ALoopbackPeerIsItsOwnersUidOverV4V6AndAV4MappedListener) {
    struct Case {
        int listen_family;
        const char* listen_at;
        int connect_family;
        const char* connect_to;
        const char* seen_as;
    };
    for (const auto& c : {Case{AF_INET, "127.0.0.1", AF_INET, "127.0.0.1", "127.0.0.1"},
                          Case{AF_INET6, "::1", AF_INET6, "::1", "::1"},
                          Case{AF_INET6, "::", AF_INET, "127.0.0.1", "127.0.0.1"},
                          // a v6 socket sent to a v4-mapped address: a v4 connection, which
                          // the kernel answers for in the socket's own (v6) form
                          Case{AF_INET, "127.0.0.1", AF_INET6, "::ffff:127.0.0.1", "127.0.0.1"}}) {
        in_port_t port = 0;
        const auto l = listener(address(c.listen_family, c.listen_at, 0), port);
        const auto client = connect_to(address(c.connect_family, c.connect_to, port));
        const sys::UniqueFd accepted{::accept4(l.get(), nullptr, nullptr, SOCK_CLOEXEC)};
        ASSERT_TRUE(accepted);
        const auto peer = sys::tcp_peer(accepted.get(), true);
        ASSERT_TRUE(peer) << peer.error().message();
        EXPECT_EQ(peer->address, c.seen_as);
        EXPECT_TRUE(peer->local);
        ASSERT_TRUE(peer->uid.has_value()) << c.listen_at;
        EXPECT_EQ(*peer->uid, ::geteuid());
        EXPECT_EQ(peer->key(), "uid " + std::to_string(::geteuid()));
    }
}

TEST(TcpPeer, AnotherUsersConnectionIsThatUsers) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "becoming another user needs root";
    }
    in_port_t port = 0;
    const auto l = listener(address(AF_INET, "127.0.0.1", 0), port);
    const uid_t nobody = 65534;
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        if (::setresgid(nobody, nobody, nobody) != 0 || ::setresuid(nobody, nobody, nobody) != 0) {
            ::_exit(2);
        }
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        auto to = address(AF_INET, "127.0.0.1", port);
        if (::connect(fd, as_sockaddr(to), sizeof(sockaddr_in)) != 0) {
            ::_exit(3);
        }
        char byte = 0;
        ::_exit(::read(fd, &byte, 1) >= 0 ? 0 : 4); // held open until the parent closes
    }
    sys::UniqueFd accepted{::accept4(l.get(), nullptr, nullptr, SOCK_CLOEXEC)};
    ASSERT_TRUE(accepted);
    const auto peer = sys::tcp_peer(accepted.get(), true);
    accepted = sys::UniqueFd{};
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_EQ(WEXITSTATUS(status), 0);
    ASSERT_TRUE(peer) << peer.error().message();
    ASSERT_TRUE(peer->uid.has_value());
    EXPECT_EQ(*peer->uid, nobody);
    EXPECT_EQ(peer->key(), "uid 65534");
}

TEST(TcpPeer, NoSocketHereIsARemotePeerKnownByItsAddress) {
    in_port_t port = 0;
    const auto l = listener(address(AF_INET, "127.0.0.1", 0), port);
    // From 127.0.0.9:1 to the listener: no socket on this host has those ends.
    const auto owner =
        sys::tcp_owner(address(AF_INET, "127.0.0.9", 1), address(AF_INET, "127.0.0.1", port));
    ASSERT_TRUE(owner) << owner.error().message();
    EXPECT_EQ(*owner, std::nullopt);
    EXPECT_EQ((sys::TcpPeer{"10.1.2.3", false, std::nullopt}.key()), "address 10.1.2.3");
    // A local peer the kernel names no owner for (its socket already closed): one key for
    // all such, never a fresh one per loopback address.
    EXPECT_EQ((sys::TcpPeer{"127.0.0.2", true, std::nullopt}.key()), "this host");
    EXPECT_TRUE(sys::is_own_address(address(AF_INET, "127.0.0.5", 1)));
    EXPECT_TRUE(sys::is_own_address(address(AF_INET6, "::1", 1)));
    EXPECT_TRUE(sys::is_own_address(address(AF_INET6, "::ffff:127.0.0.9", 1)));
    EXPECT_FALSE(sys::is_own_address(address(AF_INET, "192.0.2.7", 1)));
}

// The lookup is asked once, at listen time: it must find the listener itself. Where the
// kernel has no TCP sock_diag, this fails (and the daemon says so), never passing as if
// every peer were remote.
TEST(TcpPeer, TheKernelsLookupFindsTheListenerItself) {
    for (const auto* at : {"127.0.0.1", "0.0.0.0"}) {
        in_port_t port = 0;
        const auto l = listener(address(AF_INET, at, 0), port);
        const auto works = sys::tcp_owner_lookup_works(l.get());
        EXPECT_TRUE(works) << at << ": " << works.error().message();
    }
    in_port_t port = 0;
    const auto l6 = listener(address(AF_INET6, "::", 0), port);
    EXPECT_TRUE(sys::tcp_owner_lookup_works(l6.get()));
}

// A socket bound to a device (SO_BINDTODEVICE, allowed to any user since Linux 5.7) is
// found only on that device: looked up on loopback too, it is its owner's.
TEST(TcpPeer, ASocketBoundToLoopbackIsStillItsOwners) {
    in_port_t port = 0;
    const auto l = listener(address(AF_INET, "127.0.0.1", 0), port);
    const sys::UniqueFd client{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
    const char lo[] = "lo";
    if (::setsockopt(client.get(), SOL_SOCKET, SO_BINDTODEVICE, lo, sizeof lo) != 0) {
        GTEST_SKIP() << "SO_BINDTODEVICE: " << std::strerror(errno);
    }
    auto to = address(AF_INET, "127.0.0.1", port);
    ASSERT_EQ(::connect(client.get(), as_sockaddr(to), sizeof(sockaddr_in)), 0);
    const sys::UniqueFd accepted{::accept4(l.get(), nullptr, nullptr, SOCK_CLOEXEC)};
    const auto peer = sys::tcp_peer(accepted.get(), true);
    ASSERT_TRUE(peer) << peer.error().message();
    ASSERT_TRUE(peer->uid.has_value()) << "counted as " << peer->key();
    EXPECT_EQ(*peer->uid, ::geteuid());
}

TEST(TcpPeer, AListenerOnThePeersPortIsNotThePeer) {
    // Anyone may listen on the port a remote scraper happens to connect from; the kernel's
    // lookup by addresses falls back to such a listener (any address, that port). Were
    // it taken as the peer, its owner would be charged for the scraper's connection.
    in_port_t port = 0;
    const auto squatter = listener(address(AF_INET, "0.0.0.0", 0), port);
    const auto owner =
        sys::tcp_owner(address(AF_INET, "192.0.2.7", port), address(AF_INET, "127.0.0.1", 9940));
    ASSERT_TRUE(owner) << owner.error().message();
    EXPECT_EQ(*owner, std::nullopt);
}

} // namespace
} // namespace jp
