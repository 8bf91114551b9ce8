// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/ipmi/rmcp_rakp.hpp"

#include "sensors/ipmi/wire.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace jp::sensors::ipmi::rmcp {

namespace {

void append(Bytes& out, ByteView bytes) {
    out.insert(out.end(), bytes.begin(), bytes.end());
}

void append_user(Bytes& out, const Handshake& h) {
    out.push_back(h.role);
    out.push_back(static_cast<std::uint8_t>(h.user.size()));
    out.insert(out.end(), h.user.begin(), h.user.end());
}

auto garbled(std::string_view what, std::string detail) {
    return fail(ErrorKind::parse, std::string(what), std::move(detail),
                "the peer does not speak IPMI 2.0 RMCP+, or the reply was damaged");
}

Bytes algorithm_record(std::uint8_t kind, std::uint8_t alg) {
    return {kind, 0, 0, 8, alg, 0, 0, 0};
}

} // namespace

std::optional<CipherSuite> cipher_suite(int id) noexcept {
    switch (id) {
    case 3:
        return CipherSuite{3, Hash::sha1, 0x01, 0x01, 0x01, 12};
    case 17:
        return CipherSuite{17, Hash::sha256, 0x03, 0x04, 0x01, 16};
    default:
        return std::nullopt;
    }
}

Bytes password_key(std::string_view password) {
    Bytes key(std::max<std::size_t>(20, password.size()), 0);
    std::ranges::copy(password, key.begin());
    return key;
}

Bytes open_session_request(const CipherSuite& suite,
                           std::uint8_t tag,
                           std::uint8_t privilege,
                           std::uint32_t console_id) {
    Bytes out{tag, privilege, 0, 0};
    put32(out, console_id);
    append(out, algorithm_record(0, suite.auth_alg));
    append(out, algorithm_record(1, suite.integrity_alg));
    append(out, algorithm_record(2, suite.confidentiality));
    return out;
}

Result<OpenSessionReply> parse_open_session_response(ByteView p) {
    OpenSessionReply r;
    if (p.size() < 2) {
        return garbled("Open Session Response", fmt::format("{} bytes", p.size()));
    }
    r.tag = p[0];
    r.status = p[1];
    if (r.status != 0) {
        return r; // an error reply carries only the tag and the status
    }
    if (p.size() < 36 || p[12] != 0 || p[20] != 1 || p[28] != 2) {
        return garbled("Open Session Response", fmt::format("malformed ({} bytes)", p.size()));
    }
    r.privilege = p[2];
    r.console_id = get32(p, 4);
    r.bmc_id = get32(p, 8);
    r.auth_alg = p[16] & 0x3F;
    r.integrity_alg = p[24] & 0x3F;
    r.confidentiality = p[32] & 0x3F;
    return r;
}

Bytes rakp1(const Handshake& h, std::uint8_t tag) {
    Bytes out{tag, 0, 0, 0};
    put32(out, h.bmc_id);
    append(out, h.console_random);
    out.push_back(h.role);
    out.push_back(0);
    out.push_back(0);
    out.push_back(static_cast<std::uint8_t>(h.user.size()));
    out.insert(out.end(), h.user.begin(), h.user.end());
    return out;
}

Result<Rakp2> parse_rakp2(ByteView p, const CipherSuite& suite) {
    Rakp2 r;
    if (p.size() < 2) {
        return garbled("RAKP message 2", fmt::format("{} bytes", p.size()));
    }
    r.tag = p[0];
    r.status = p[1];
    if (r.status != 0) {
        return r;
    }
    const std::size_t mac = digest_size(suite.hash);
    if (p.size() < 40 + mac) {
        return garbled("RAKP message 2", fmt::format("{} bytes, expected {}", p.size(), 40 + mac));
    }
    r.console_id = get32(p, 4);
    r.bmc_random.assign(p.begin() + 8, p.begin() + 24);
    r.bmc_guid.assign(p.begin() + 24, p.begin() + 40);
    r.auth_code.assign(p.begin() + 40, p.begin() + 40 + static_cast<std::ptrdiff_t>(mac));
    return r;
}

Bytes rakp2_auth_code(const Handshake& h) {
    Bytes in;
    put32(in, h.console_id);
    put32(in, h.bmc_id);
    append(in, h.console_random);
    append(in, h.bmc_random);
    append(in, h.bmc_guid);
    append_user(in, h);
    return hmac(h.suite.hash, h.kuid, in);
}

Bytes rakp3(const Handshake& h, std::uint8_t tag) {
    Bytes out{tag, 0, 0, 0};
    put32(out, h.bmc_id);
    append(out, rakp3_auth_code(h));
    return out;
}

Bytes rakp3_auth_code(const Handshake& h) {
    Bytes in = h.bmc_random;
    put32(in, h.console_id);
    append_user(in, h);
    return hmac(h.suite.hash, h.kuid, in);
}

Result<Rakp4> parse_rakp4(ByteView p, const CipherSuite& suite) {
    Rakp4 r;
    if (p.size() < 2) {
        return garbled("RAKP message 4", fmt::format("{} bytes", p.size()));
    }
    r.tag = p[0];
    r.status = p[1];
    if (r.status != 0) {
        return r;
    }
    if (p.size() < 8 + suite.integrity_size) {
        return garbled("RAKP message 4", fmt::format("{} bytes", p.size()));
    }
    r.console_id = get32(p, 4);
    r.icv.assign(p.begin() + 8, p.begin() + 8 + static_cast<std::ptrdiff_t>(suite.integrity_size));
    return r;
}

Bytes rakp4_icv(const Handshake& h, ByteView sik) {
    Bytes in = h.console_random;
    put32(in, h.bmc_id);
    append(in, h.bmc_guid);
    Bytes mac = hmac(h.suite.hash, sik, in);
    mac.resize(std::min(mac.size(), h.suite.integrity_size));
    return mac;
}

Bytes session_integrity_key(const Handshake& h) {
    Bytes in = h.console_random;
    append(in, h.bmc_random);
    append_user(in, h);
    return hmac(h.suite.hash, h.kuid, in);
}

SessionKeys session_keys(const CipherSuite& suite, ByteView sik) {
    const Bytes one(20, 0x01);
    const Bytes two(20, 0x02);
    return SessionKeys{suite.hash, suite.integrity_size, hmac(suite.hash, sik, one),
                       hmac(suite.hash, sik, two)};
}

std::string_view rakp_status_text(std::uint8_t status) noexcept {
    switch (status) {
    case 0x00:
        return "no errors";
    case 0x01:
        return "insufficient resources to create a session";
    case 0x02:
        return "invalid session ID";
    case 0x03:
        return "invalid payload type";
    case 0x04:
        return "invalid authentication algorithm";
    case 0x05:
        return "invalid integrity algorithm";
    case 0x06:
        return "no matching authentication payload";
    case 0x07:
        return "no matching integrity payload";
    case 0x08:
        return "inactive session ID";
    case 0x09:
        return "invalid role";
    case 0x0A:
        return "unauthorized role or privilege level requested";
    case 0x0B:
        return "insufficient resources to create a session at the requested role";
    case 0x0C:
        return "invalid name length";
    case 0x0D:
        return "unauthorized name";
    case 0x0E:
        return "unauthorized GUID";
    case 0x0F:
        return "invalid integrity check value";
    case 0x10:
        return "invalid confidentiality algorithm";
    case 0x11:
        return "no cipher suite match with proposed security algorithms";
    case 0x12:
        return "illegal or unrecognized parameter";
    default:
        return "unknown RAKP status";
    }
}

} // namespace jp::sensors::ipmi::rmcp
