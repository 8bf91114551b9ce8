// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/ipmi/rmcp_packet.hpp"

#include "sensors/ipmi/wire.hpp"

#include <fmt/format.h>

namespace jp::sensors::ipmi::rmcp {

namespace {

constexpr std::size_t k_header = 16; // RMCP (4) + session header (12)
constexpr std::uint8_t k_auth_rmcp_plus = 0x06;
constexpr std::uint8_t k_bmc_address = 0x20;
constexpr std::uint8_t k_console_address = 0x81;

auto garbled(std::string detail) {
    return fail(ErrorKind::parse, "RMCP+ reply", std::move(detail),
                "the peer does not speak IPMI 2.0 RMCP+, or the reply was damaged");
}

Result<Bytes> encrypt(const SessionKeys& keys, ByteView plain) {
    Bytes padded(plain.begin(), plain.end());
    const std::size_t pad = (16 - (plain.size() + 1) % 16) % 16;
    for (std::size_t i = 1; i <= pad; ++i) {
        padded.push_back(static_cast<std::uint8_t>(i));
    }
    padded.push_back(static_cast<std::uint8_t>(pad));
    auto iv = random_bytes(16);
    if (!iv) {
        return std::unexpected(iv.error());
    }
    auto sealed = aes128_cbc_encrypt(keys.k2, *iv, padded);
    if (!sealed) {
        return std::unexpected(sealed.error());
    }
    Bytes out = std::move(*iv);
    out.insert(out.end(), sealed->begin(), sealed->end());
    return out;
}

Result<Bytes> decrypt(const SessionKeys& keys, ByteView sealed) {
    if (sealed.size() < 32 || sealed.size() % 16 != 0) {
        return garbled(fmt::format("encrypted payload of {} bytes", sealed.size()));
    }
    auto plain = aes128_cbc_decrypt(keys.k2, sealed.first(16), sealed.subspan(16));
    if (!plain) {
        return std::unexpected(plain.error());
    }
    const std::size_t pad = plain->back();
    if (pad >= 16 || pad + 1 > plain->size()) {
        return garbled(fmt::format("confidentiality pad length {}", pad));
    }
    const std::size_t size = plain->size() - pad - 1;
    for (std::size_t i = 0; i < pad; ++i) {
        if ((*plain)[size + i] != i + 1) {
            return garbled("confidentiality pad bytes are wrong");
        }
    }
    plain->resize(size);
    return plain;
}

} // namespace

std::uint8_t checksum(ByteView bytes) noexcept {
    std::uint8_t sum = 0;
    for (const std::uint8_t b : bytes) {
        sum = static_cast<std::uint8_t>(sum + b);
    }
    return static_cast<std::uint8_t>(-sum);
}

Result<Bytes> encode_packet(const Packet& packet, const SessionKeys* keys) {
    Bytes body = packet.payload;
    const bool sealed = keys != nullptr;
    if (sealed) {
        auto enc = encrypt(*keys, packet.payload);
        if (!enc) {
            return std::unexpected(enc.error());
        }
        body = std::move(*enc);
    }
    if (body.size() > 0xFFFF) {
        return fail(ErrorKind::internal, "RMCP+ request", "payload too large");
    }
    Bytes out{0x06, 0x00, 0xFF, 0x07, k_auth_rmcp_plus};
    out.push_back(
        static_cast<std::uint8_t>(static_cast<std::uint8_t>(packet.type) | (sealed ? 0xC0 : 0x00)));
    put32(out, packet.session_id);
    put32(out, packet.sequence);
    out.push_back(static_cast<std::uint8_t>(body.size()));
    out.push_back(static_cast<std::uint8_t>(body.size() >> 8));
    out.insert(out.end(), body.begin(), body.end());
    if (sealed) {
        // Pad so that the bytes from the auth type through the next header are a multiple of 4.
        const std::size_t covered = out.size() - 4 + 2;
        const std::size_t pad = (4 - covered % 4) % 4;
        out.insert(out.end(), pad, 0xFF);
        out.push_back(static_cast<std::uint8_t>(pad));
        out.push_back(0x07);
        const Bytes mac = hmac(keys->hash, keys->k1, ByteView(out).subspan(4));
        if (mac.size() < keys->integrity_size) {
            return fail(ErrorKind::library, "HMAC", "integrity code failed");
        }
        out.insert(out.end(), mac.begin(),
                   mac.begin() + static_cast<std::ptrdiff_t>(keys->integrity_size));
    }
    return out;
}

Result<Packet> decode_packet(ByteView in, const SessionKeys* keys) {
    if (in.size() < k_header || in[0] != 0x06 || in[3] != 0x07) {
        return garbled(fmt::format("not an RMCP datagram ({} bytes)", in.size()));
    }
    if (in[4] != k_auth_rmcp_plus) {
        return garbled(fmt::format("session auth type 0x{:02x}, not RMCP+ (0x06)", in[4]));
    }
    Packet p;
    p.encrypted = (in[5] & 0x80) != 0;
    p.authenticated = (in[5] & 0x40) != 0;
    p.type = static_cast<Payload>(in[5] & 0x3F);
    p.session_id = get32(in, 6);
    p.sequence = get32(in, 10);
    const std::size_t length = static_cast<std::size_t>(in[14]) | std::size_t{in[15]} << 8;
    if (k_header + length > in.size()) {
        return garbled(
            fmt::format("payload length {} beyond the {}-byte datagram", length, in.size()));
    }
    ByteView body = in.subspan(k_header, length);
    if ((p.encrypted || p.authenticated) && keys == nullptr) {
        return garbled("an authenticated or encrypted payload outside a session");
    }
    if (p.authenticated) {
        const std::size_t trailer_end = in.size();
        if (trailer_end < k_header + length + 2 + keys->integrity_size) {
            return garbled("integrity trailer missing");
        }
        const std::size_t mac_at = trailer_end - keys->integrity_size;
        if (in[mac_at - 1] != 0x07 || (mac_at - 4) % 4 != 0 ||
            in[mac_at - 2] != mac_at - 2 - k_header - length) {
            return garbled("integrity pad or next header is wrong");
        }
        const Bytes mac = hmac(keys->hash, keys->k1, in.subspan(4, mac_at - 4));
        if (mac.size() < keys->integrity_size ||
            !equal_ct(ByteView(mac).first(keys->integrity_size), in.subspan(mac_at))) {
            return garbled("integrity check failed (wrong key or damaged reply)");
        }
    }
    if (p.encrypted) {
        auto plain = decrypt(*keys, body);
        if (!plain) {
            return std::unexpected(plain.error());
        }
        p.payload = std::move(*plain);
    } else {
        p.payload.assign(body.begin(), body.end());
    }
    return p;
}

Bytes encode_ipmi_request(const Request& request, std::uint8_t rq_seq) {
    Bytes out{k_bmc_address, static_cast<std::uint8_t>((request.netfn << 2) | (request.lun & 0x3))};
    out.push_back(checksum(out));
    out.push_back(k_console_address);
    out.push_back(static_cast<std::uint8_t>(rq_seq << 2));
    out.push_back(request.cmd);
    out.insert(out.end(), request.data.begin(), request.data.end());
    out.push_back(checksum(ByteView(out).subspan(3)));
    return out;
}

Result<IpmiReply> decode_ipmi_response(ByteView m) {
    // rqAddr, netFn/rqLUN, checksum, rsAddr, rqSeq/rsLUN, cmd, completion, data..., checksum
    if (m.size() < 8) {
        return garbled(fmt::format("IPMI message of {} bytes", m.size()));
    }
    if (checksum(m.first(2)) != m[2] || checksum(m.subspan(3, m.size() - 4)) != m.back()) {
        return garbled("IPMI message checksum mismatch");
    }
    IpmiReply r;
    r.netfn = static_cast<std::uint8_t>(m[1] >> 2);
    r.rq_seq = static_cast<std::uint8_t>(m[4] >> 2);
    r.cmd = m[5];
    r.response.completion = m[6];
    r.response.data.assign(m.begin() + 7, m.end() - 1);
    return r;
}

} // namespace jp::sensors::ipmi::rmcp
