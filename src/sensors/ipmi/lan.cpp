// SPDX-License-Identifier: BSD-3-Clause
// The out-of-band transport: an RMCP+ session raised to the configured
// privilege, kept across calls, opened again once when the BMC has lost it,
// closed on destruction.
#include "sensors/ipmi/lan.hpp"

#include "core/log.hpp"
#include "sensors/ipmi/lan_session.hpp"
#include "sensors/ipmi/wire.hpp"

#include <fmt/format.h>

namespace jp::sensors::ipmi {

namespace {

class LanTransport final : public Transport {
public:
    LanTransport(LanOptions options, rmcp::CipherSuite suite, UdpPeer peer)
        : m_options(std::move(options)), m_session(m_options, suite, std::move(peer)) {}
    ~LanTransport() override { m_session.close(); }

    Result<void> open();
    Result<Response> call(const Request& request) override;
    [[nodiscard]] int sessions_opened() const noexcept { return m_sessions; }
    [[nodiscard]] std::string describe() const override {
        return fmt::format("out-of-band {} (RMCP+, cipher suite {})",
                           host_port(m_options.host, m_options.port), m_session.suite().id);
    }

private:
    Result<void> raise_privilege();

    LanOptions m_options; // before m_session, which refers to it
    RmcpSession m_session;
    int m_sessions = 0;
};

Result<void> LanTransport::open() {
    if (auto established = m_session.establish(); !established) {
        return established;
    }
    ++m_sessions;
    if (m_options.privilege > 2) {
        if (auto raised = raise_privilege(); !raised) {
            m_session.close();
            return raised;
        }
    }
    JP_LOG_DEBUG("ipmi: RMCP+ session 0x{:08x} open to {} as user '{}' (cipher suite {})",
                 m_session.id(), host_port(m_options.host, m_options.port), m_options.user,
                 m_session.suite().id);
    return {};
}

Result<Response> LanTransport::call(const Request& request) {
    const int tries = m_options.retries + 1;
    if (m_session.active()) {
        auto reply = m_session.request(request, tries);
        if (reply || reply.error().kind != ErrorKind::io) {
            return reply;
        }
        JP_LOG_DEBUG("ipmi: no reply from {} on session 0x{:08x}; opening a new session",
                     host_port(m_options.host, m_options.port), m_session.id());
    }
    // The session is gone (BMC reset, session timeout) or was never opened: once more.
    if (auto opened = open(); !opened) {
        return std::unexpected(opened.error());
    }
    return m_session.request(request, tries);
}

Result<void> LanTransport::raise_privilege() {
    auto reply =
        m_session.request(Request{0x06, 0x3B, {m_options.privilege}}, m_options.retries + 1);
    if (!reply) {
        return std::unexpected(reply.error());
    }
    if (reply->completion != 0) {
        return fail(ErrorKind::permission, m_session.where(),
                    fmt::format("user '{}' may not have {} privilege (Set Session Privilege "
                                "Level: completion code 0x{:02X})",
                                m_options.user, privilege_name(m_options.privilege),
                                reply->completion),
                    "lower ipmi.privilege or raise the user's privilege limit on the BMC");
    }
    return {};
}

} // namespace

int lan_sessions_opened(const Transport& transport) noexcept {
    const auto* lan = dynamic_cast<const LanTransport*>(&transport);
    return lan == nullptr ? 0 : lan->sessions_opened();
}

Result<std::unique_ptr<Transport>> open_lan(const LanOptions& options) {
    const std::string where = "IPMI LAN " + host_port(options.host, options.port);
    auto suite = rmcp::cipher_suite(options.cipher_suite);
    if (!suite) {
        return fail(ErrorKind::config, where,
                    fmt::format("cipher suite {} is not supported", options.cipher_suite),
                    "set ipmi.cipher_suite to 3 (HMAC-SHA1, AES-128) or 17 (HMAC-SHA256, AES-128)");
    }
    if (options.user.size() > 16) {
        return fail(ErrorKind::config, where, "user name longer than 16 bytes",
                    "IPMI user names have at most 16 characters");
    }
    if (options.password.size() > 20) {
        return fail(ErrorKind::config, where, "password longer than 20 bytes",
                    "IPMI 2.0 passwords have at most 20 characters");
    }
    if (options.privilege < 2 || options.privilege > 4) {
        return fail(ErrorKind::config, where, "privilege must be user, operator or admin");
    }
    if (options.timeout <= Nanos{0} || options.retries < 0) {
        return fail(ErrorKind::config, where, "timeout must be positive and retries not negative");
    }
    auto peer = UdpPeer::connect(options.host, options.port);
    if (!peer) {
        return std::unexpected(peer.error());
    }
    auto transport = std::make_unique<LanTransport>(options, *suite, std::move(*peer));
    if (auto opened = transport->open(); !opened) {
        return std::unexpected(opened.error());
    }
    return transport;
}

} // namespace jp::sensors::ipmi
