// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Stream sockets for local servers and their clients: a Unix socket that
// listens (with its mode), a Unix client connection with a deadline, a TCP
// listener on host:port, and the peer credentials the kernel vouches for.
#include "core/duration.hpp"
#include "core/error.hpp"
#include "sys/fd.hpp"

#include <filesystem>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace jp::sys {

// Listens on a Unix stream socket at path (non-blocking, close-on-exec), then
// chmods it to mode. A socket file left by a dead server is replaced; one that
// a live server answers on is an error, and so is any other kind of file there.
[[nodiscard]] Result<UniqueFd>
listen_unix(const std::filesystem::path& path, mode_t mode, int backlog);

// Connects to a Unix stream socket; gives up after timeout when the server's
// backlog is full. The descriptor is blocking and close-on-exec.
[[nodiscard]] Result<UniqueFd> connect_unix(const std::filesystem::path& path, Nanos timeout);

// Listens on TCP "host:port" ("127.0.0.1:9940", "[::1]:9940", "localhost:9940"),
// non-blocking, close-on-exec, SO_REUSEADDR.
[[nodiscard]] Result<UniqueFd> listen_tcp(std::string_view host_port, int backlog);

// Who is at the other end of a connected Unix socket, from the kernel
// (SO_PEERCRED, SO_PEERGROUPS): never from anything the peer sends.
struct PeerCredentials {
    pid_t pid = 0;
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups; // supplementary groups at connect time
};
[[nodiscard]] Result<PeerCredentials> peer_credentials(int fd);

// Writes all of data to a blocking descriptor without SIGPIPE; EPIPE etc. as errors.
[[nodiscard]] Result<void> send_all(int fd, std::string_view data);

} // namespace jp::sys
