// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One RMCP+ session to a BMC: Open Session and RAKP 1-4 (IPMI 2.0 section 13),
// then IPMI requests sealed with the session's keys, and Close Session.
#include "core/error.hpp"
#include "sensors/ipmi/lan.hpp"
#include "sensors/ipmi/lan_udp.hpp"
#include "sensors/ipmi/rmcp_packet.hpp"
#include "sensors/ipmi/rmcp_rakp.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace jp::sensors::ipmi {

class RmcpSession {
public:
    RmcpSession(const LanOptions& options, rmcp::CipherSuite suite, UdpPeer peer)
        : m_options(options), m_suite(suite), m_peer(std::move(peer)),
          m_where("IPMI LAN " + host_port(options.host, options.port)) {}

    // Opens a new session (forgetting any previous one); errors name host:port.
    [[nodiscard]] Result<void> establish();
    // Sends one request in the session, tries times; io errors mean no reply.
    [[nodiscard]] Result<Response> request(const Request& request, int tries);
    // Close Session, one try, best effort.
    void close() noexcept;

    [[nodiscard]] bool active() const noexcept { return m_active; }
    [[nodiscard]] std::uint32_t id() const noexcept { return m_bmc_id; }
    [[nodiscard]] const std::string& where() const noexcept { return m_where; }
    [[nodiscard]] const rmcp::CipherSuite& suite() const noexcept { return m_suite; }

private:
    // Sends what make() builds (once per try) until accept() takes a reply.
    using Accept = std::function<Result<bool>(const rmcp::Packet&)>;
    Result<void> exchange(const std::function<Result<rmcp::Bytes>()>& make,
                          const Accept& accept,
                          std::string_view step,
                          int tries);
    template <class Reply, class Parse>
    Result<Reply> step(rmcp::Payload type,
                       const rmcp::Bytes& payload,
                       rmcp::Payload reply_type,
                       std::uint8_t tag,
                       Parse parse,
                       std::string_view name);
    Result<void> open_session(rmcp::Handshake& h, std::uint8_t tag);
    Result<void> rakp_1_2(rmcp::Handshake& h, std::uint8_t tag);
    Result<void> rakp_3_4(const rmcp::Handshake& h, std::uint8_t tag, rmcp::ByteView sik);
    [[nodiscard]] std::unexpected<Error> refused(std::string detail, std::string hint) const {
        return fail(ErrorKind::permission, m_where, std::move(detail), std::move(hint));
    }

    const LanOptions& m_options; // owned by the transport that owns this session
    rmcp::CipherSuite m_suite;
    UdpPeer m_peer;
    std::string m_where;
    rmcp::SessionKeys m_keys;
    std::uint32_t m_bmc_id = 0;
    std::uint32_t m_out_seq = 0;
    std::uint8_t m_rq_seq = 0;
    std::uint8_t m_tag = 0;
    bool m_active = false;
};

} // namespace jp::sensors::ipmi
