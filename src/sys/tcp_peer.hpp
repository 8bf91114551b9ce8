// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Who is at the other end of an accepted TCP connection. A TCP peer sends no
// credentials, but where the connecting socket is on this host (in this network
// namespace) the kernel knows its owner: sock_diag looks the socket up by its exact
// four addresses and ports and gives its uid, as `ss -e` shows it. A remote peer is
// known by its address alone. Servers ration connections by this (jouleprofd's
// /metrics: one local user cannot hold every slot).
#include "core/error.hpp"

#include <optional>
#include <string>
#include <sys/socket.h>
#include <sys/types.h>

namespace jp::sys {

struct TcpPeer {
    std::string address;      // "127.0.0.1", "::1", "10.1.2.3" (a v4-mapped v6 peer as v4)
    bool local = false;       // the address is loopback or one of this host's own
    std::optional<uid_t> uid; // the connecting socket's owner, where the kernel names one
    // What to count connections by: "uid 1001"; a local peer the kernel names no owner
    // for (its socket gone, or bound out of reach of the lookup): "this host"; else
    // "address 10.1.2.3".
    [[nodiscard]] std::string key() const;
};

// Whether the kernel can be asked (sock_diag's TCP lookup is there, and allowed): it must
// find the listener itself, owned by this process's user. Asked once, at listen time;
// without it every local peer would look remote.
[[nodiscard]] Result<void> tcp_owner_lookup_works(int listen_fd);

// The peer of a connected TCP socket (accept's result); fails only where the socket has
// no peer. ask_owner: look its owner up (tcp_owner_lookup_works said yes); an error of the
// lookup itself leaves uid empty.
[[nodiscard]] Result<TcpPeer> tcp_peer(int fd, bool ask_owner);

// The owner of the TCP socket on this host whose own end is `from` and whose other end is
// `to`: the connecting side of a connection accepted at `to`. nullopt where there is none
// (a remote peer, a socket already closed). Only an exact match counts: the kernel's
// lookup falls back to a listener on from's port, which would name whoever listens there.
// A socket bound to a device is found on that device (loopback, or the one holding
// from's address).
[[nodiscard]] Result<std::optional<uid_t>> tcp_owner(const sockaddr_storage& from,
                                                     const sockaddr_storage& to);

// Whether an address is loopback or assigned to one of this host's interfaces.
[[nodiscard]] bool is_own_address(const sockaddr_storage& a);

} // namespace jp::sys
