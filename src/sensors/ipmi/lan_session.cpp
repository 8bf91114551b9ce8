// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/ipmi/lan_session.hpp"

#include "sensors/ipmi/wire.hpp"

#include <fmt/format.h>
#include <optional>

namespace jp::sensors::ipmi {

namespace {

using rmcp::Bytes;
using rmcp::Packet;
using rmcp::Payload;

constexpr std::uint32_t k_console_id = 0x4A504C31; // "1LPJ": any non-zero value
constexpr std::uint8_t k_name_only_lookup = 0x10;

} // namespace

Result<void> RmcpSession::exchange(const std::function<Result<Bytes>()>& make,
                                   const Accept& accept,
                                   std::string_view step,
                                   int tries) {
    m_peer.drain();
    std::optional<Error> garbled;
    for (int attempt = 0; attempt < tries; ++attempt) {
        auto datagram = make();
        if (!datagram) {
            return std::unexpected(datagram.error());
        }
        if (auto sent = m_peer.send(*datagram); !sent) {
            return fail(ErrorKind::io, m_where, sent.error().message());
        }
        const auto deadline = UdpPeer::Clock::now() + m_options.timeout;
        for (;;) {
            auto got = m_peer.receive(deadline);
            if (!got) {
                return fail(ErrorKind::io, m_where, got.error().message());
            }
            if (!*got) {
                break; // this try timed out
            }
            auto packet = rmcp::decode_packet(**got, m_active ? &m_keys : nullptr);
            if (!packet) {
                garbled = Error{ErrorKind::parse, m_where,
                                fmt::format("garbled reply to {}: {}", step, packet.error().detail),
                                packet.error().hint};
                if (!m_active) {
                    return std::unexpected(*garbled);
                }
                continue; // in a session: a stale or forged datagram; wait for the real reply
            }
            auto taken = accept(*packet);
            if (!taken) {
                return std::unexpected(taken.error());
            }
            if (*taken) {
                return {};
            }
        }
    }
    if (garbled) {
        return std::unexpected(*garbled);
    }
    return fail(ErrorKind::io, m_where,
                fmt::format("no reply to {} after {} tr{} of {} each", step, tries,
                            tries == 1 ? "y" : "ies", format_duration(m_options.timeout)),
                "check the BMC address and port, that IPMI over LAN is enabled on the BMC and "
                "that UDP to it is not filtered");
}

// One handshake message and its reply (matched by payload type and tag).
template <class Reply, class Parse>
Result<Reply> RmcpSession::step(Payload type,
                                const Bytes& payload,
                                Payload reply_type,
                                std::uint8_t tag,
                                Parse parse,
                                std::string_view name) {
    Reply reply;
    auto status = exchange(
        [&]() -> Result<Bytes> {
            return rmcp::encode_packet(Packet{type, 0, 0, false, false, payload}, nullptr);
        },
        [&](const Packet& p) -> Result<bool> {
            if (p.type != reply_type) {
                return false;
            }
            auto r = parse(p.payload);
            if (!r) {
                return fail(ErrorKind::parse, m_where,
                            fmt::format("garbled reply to {}: {}", name, r.error().detail),
                            r.error().hint);
            }
            reply = *r;
            return r->tag == tag;
        },
        name, m_options.retries + 1);
    if (!status) {
        return std::unexpected(status.error());
    }
    return reply;
}

Result<void> RmcpSession::open_session(rmcp::Handshake& h, std::uint8_t tag) {
    auto opened = step<rmcp::OpenSessionReply>(
        Payload::open_session_request,
        rmcp::open_session_request(m_suite, tag, m_options.privilege, h.console_id),
        Payload::open_session_response, tag, rmcp::parse_open_session_response,
        "Open Session Request");
    if (!opened) {
        return std::unexpected(opened.error());
    }
    const std::uint8_t status = opened->status;
    if (status != 0) {
        const bool suite = status == 0x04 || status == 0x05 || status == 0x10 || status == 0x11;
        return refused(fmt::format("Open Session refused: {} (RAKP status 0x{:02x})",
                                   rmcp::rakp_status_text(status), status),
                       suite ? fmt::format("the BMC does not offer cipher suite {}; try "
                                           "ipmi.cipher_suite = 3 or 17",
                                           m_suite.id)
                             : "check ipmi.privilege and the BMC's LAN channel settings");
    }
    if (opened->auth_alg != m_suite.auth_alg || opened->integrity_alg != m_suite.integrity_alg ||
        opened->confidentiality != m_suite.confidentiality) {
        return refused(fmt::format("the BMC chose algorithms {}/{}/{}, not cipher suite {}",
                                   opened->auth_alg, opened->integrity_alg, opened->confidentiality,
                                   m_suite.id),
                       "set ipmi.cipher_suite to one the BMC supports (3 or 17)");
    }
    h.bmc_id = opened->bmc_id;
    return {};
}

Result<void> RmcpSession::rakp_1_2(rmcp::Handshake& h, std::uint8_t tag) {
    auto r2 = step<rmcp::Rakp2>(
        Payload::rakp1, rmcp::rakp1(h, tag), Payload::rakp2, tag,
        [this](rmcp::ByteView p) { return rmcp::parse_rakp2(p, m_suite); }, "RAKP message 1");
    if (!r2) {
        return std::unexpected(r2.error());
    }
    if (r2->status == 0x0D) {
        return refused(
            fmt::format("the BMC knows no user '{}' (RAKP 2: unauthorized name)", m_options.user),
            "check ipmi.user");
    }
    if (r2->status != 0) {
        return refused(fmt::format("RAKP 2 refused: {} (status 0x{:02x}) for user '{}' at "
                                   "privilege {}",
                                   rmcp::rakp_status_text(r2->status), r2->status, m_options.user,
                                   privilege_name(m_options.privilege)),
                       "check ipmi.user and ipmi.privilege against the BMC's user settings");
    }
    h.bmc_random = r2->bmc_random;
    h.bmc_guid = r2->bmc_guid;
    if (!rmcp::equal_ct(rmcp::rakp2_auth_code(h), r2->auth_code)) {
        return refused(
            fmt::format("wrong password for user '{}': the BMC's RAKP 2 key exchange code does "
                        "not match",
                        m_options.user),
            "check the password in ipmi.password_file");
    }
    return {};
}

Result<void> RmcpSession::rakp_3_4(const rmcp::Handshake& h, std::uint8_t tag, rmcp::ByteView sik) {
    auto r4 = step<rmcp::Rakp4>(
        Payload::rakp3, rmcp::rakp3(h, tag), Payload::rakp4, tag,
        [this](rmcp::ByteView p) { return rmcp::parse_rakp4(p, m_suite); }, "RAKP message 3");
    if (!r4) {
        return std::unexpected(r4.error());
    }
    if (r4->status != 0) {
        return refused(fmt::format("RAKP 4 refused: {} (status 0x{:02x}) for user '{}'",
                                   rmcp::rakp_status_text(r4->status), r4->status, m_options.user),
                       r4->status == 0x0F ? "check the password in ipmi.password_file"
                                          : "check the BMC's user and LAN settings");
    }
    if (!rmcp::equal_ct(rmcp::rakp4_icv(h, sik), r4->icv)) {
        return refused("the BMC's RAKP 4 integrity check value does not match",
                       "the BMC may require a BMC key (Kg), which jouleprof does not support");
    }
    return {};
}

Result<void> RmcpSession::establish() {
    m_active = false;
    rmcp::Handshake h;
    h.suite = m_suite;
    h.console_id = k_console_id;
    h.role = static_cast<std::uint8_t>(m_options.privilege | k_name_only_lookup);
    h.user = m_options.user;
    h.kuid = rmcp::password_key(m_options.password);
    struct Wipe {
        Bytes& key;
        ~Wipe() { rmcp::wipe(key); }
    } const wipe_kuid{h.kuid};
    auto random = rmcp::random_bytes(16);
    if (!random) {
        return std::unexpected(random.error());
    }
    h.console_random = std::move(*random);
    const std::uint8_t tag = ++m_tag;
    if (auto s = open_session(h, tag); !s) {
        return s;
    }
    if (auto s = rakp_1_2(h, tag); !s) {
        return s;
    }
    const Bytes sik = rmcp::session_integrity_key(h);
    if (auto s = rakp_3_4(h, tag, sik); !s) {
        return s;
    }
    m_keys = rmcp::session_keys(m_suite, sik);
    m_bmc_id = h.bmc_id;
    m_out_seq = 0;
    m_active = true;
    return {};
}

Result<Response> RmcpSession::request(const Request& request, int tries) {
    if (!m_active) {
        return fail(ErrorKind::internal, m_where, "no RMCP+ session");
    }
    m_rq_seq = static_cast<std::uint8_t>(m_rq_seq % 63 + 1);
    const std::uint8_t rq_seq = m_rq_seq;
    const Bytes message = rmcp::encode_ipmi_request(request, rq_seq);
    Response out;
    auto status = exchange(
        [&]() -> Result<Bytes> {
            m_out_seq = m_out_seq == 0xFFFFFFFF ? 1 : m_out_seq + 1;
            return rmcp::encode_packet(
                Packet{Payload::ipmi, m_bmc_id, m_out_seq, true, true, message}, &m_keys);
        },
        [&](const Packet& p) -> Result<bool> {
            if (p.type != Payload::ipmi || !p.authenticated || !p.encrypted ||
                p.session_id != k_console_id) {
                return false;
            }
            auto reply = rmcp::decode_ipmi_response(p.payload);
            if (!reply) {
                return fail(ErrorKind::parse, m_where, reply.error().message(), reply.error().hint);
            }
            if (reply->rq_seq != rq_seq || reply->cmd != request.cmd ||
                reply->netfn != (request.netfn | 1)) {
                return false; // a late reply to an earlier request
            }
            out = std::move(reply->response);
            return true;
        },
        fmt::format("request NetFn 0x{:02X} cmd 0x{:02X}", request.netfn, request.cmd), tries);
    if (!status) {
        return std::unexpected(status.error());
    }
    return out;
}

void RmcpSession::close() noexcept {
    if (!m_active) {
        return;
    }
    const std::uint32_t id = m_bmc_id;
    const Request close{0x06,
                        0x3C,
                        {static_cast<std::uint8_t>(id), static_cast<std::uint8_t>(id >> 8),
                         static_cast<std::uint8_t>(id >> 16), static_cast<std::uint8_t>(id >> 24)}};
    try {
        (void)request(close, 1);
    } catch (...) {
        m_active = false; // allocation failure: the BMC times the session out itself
        return;
    }
    m_active = false;
}

} // namespace jp::sensors::ipmi
