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
    std::optional<uid_t> uid; // the connecting socket's owner, where it is on this host
    std::string unasked;      // why the kernel could not be asked for the owner; "": it was
    // What to count connections by: "uid 1001" for a local peer, else "address 10.1.2.3".
    [[nodiscard]] std::string key() const;
};

// The peer of a connected TCP socket (accept's result); fails only where the socket has
// no peer. A peer the kernel has no socket for is remote; where the kernel cannot be
// asked (no sock_diag), the peer is known by its address and `unasked` says why.
[[nodiscard]] Result<TcpPeer> tcp_peer(int fd);

// The owner of the TCP socket on this host whose own end is `from` and whose other
// end is `to`: the connecting side of a connection accepted at `to`. nullopt where
// there is none (a remote peer). Only an exact match counts: the kernel's lookup
// falls back to a listener on from's port, which would name whoever listens there.
[[nodiscard]] Result<std::optional<uid_t>> tcp_owner(const sockaddr_storage& from,
                                                     const sockaddr_storage& to);

} // namespace jp::sys
