// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A connected UDP socket to one BMC: send a datagram, wait for one until a deadline.
#include "core/duration.hpp"
#include "core/error.hpp"
#include "sensors/ipmi/rmcp_crypto.hpp"
#include "sys/fd.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace jp::sensors::ipmi {

class UdpPeer {
public:
    using Clock = std::chrono::steady_clock;

    // Resolves host and connects a datagram socket to host:port.
    [[nodiscard]] static Result<UdpPeer> connect(const std::string& host, int port);

    [[nodiscard]] Result<void> send(rmcp::ByteView datagram) const;
    // The next datagram from the peer, or nullopt when the deadline passes.
    [[nodiscard]] Result<std::optional<rmcp::Bytes>> receive(Clock::time_point deadline) const;
    // Drops whatever datagrams are queued (late replies to earlier tries).
    void drain() const;

private:
    explicit UdpPeer(sys::UniqueFd fd) : m_fd(std::move(fd)) {}
    sys::UniqueFd m_fd;
};

// "10.0.0.5:623", "[fe80::1]:623".
[[nodiscard]] std::string host_port(const std::string& host, int port);

} // namespace jp::sensors::ipmi
