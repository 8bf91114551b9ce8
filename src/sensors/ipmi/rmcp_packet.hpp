// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// RMCP+ framing (IPMI 2.0 section 13.6): the RMCP header, the IPMI 2.0 session
// header, the payload (AES-CBC-128 encrypted once the session is active) and
// the integrity trailer (pad, pad length, next header 0x07, truncated HMAC);
// and the IPMI LAN message inside payload type 0 (addresses, checksums).
#include "core/error.hpp"
#include "sensors/ipmi/rmcp_crypto.hpp"
#include "sensors/ipmi/transport.hpp"

#include <cstdint>

namespace jp::sensors::ipmi::rmcp {

enum class Payload : std::uint8_t {
    ipmi = 0x00,
    open_session_request = 0x10,
    open_session_response = 0x11,
    rakp1 = 0x12,
    rakp2 = 0x13,
    rakp3 = 0x14,
    rakp4 = 0x15,
};

// The keys of an active session: K1 for integrity, K2's first 16 bytes for AES.
struct SessionKeys {
    Hash hash = Hash::sha1;         // of the integrity HMAC
    std::size_t integrity_size = 0; // 12 (HMAC-SHA1-96) or 16 (HMAC-SHA256-128)
    Bytes k1;
    Bytes k2;
};

struct Packet {
    Payload type = Payload::ipmi;
    std::uint32_t session_id = 0; // the receiver's ID; 0 before the session is active
    std::uint32_t sequence = 0;
    bool encrypted = false;
    bool authenticated = false;
    Bytes payload; // clear text
};

// Encodes a packet; with keys the payload is encrypted and authenticated.
[[nodiscard]] Result<Bytes> encode_packet(const Packet& packet, const SessionKeys* keys);
// Decodes a datagram; an authenticated or encrypted one needs keys and is
// checked (HMAC, padding) before anything in it is trusted.
[[nodiscard]] Result<Packet> decode_packet(ByteView in, const SessionKeys* keys);

// The IPMI message in payload type 0: BMC 0x20, remote console software ID 0x81.
[[nodiscard]] Bytes encode_ipmi_request(const Request& request, std::uint8_t rq_seq);

struct IpmiReply {
    std::uint8_t netfn = 0; // the response NetFn (odd)
    std::uint8_t cmd = 0;
    std::uint8_t rq_seq = 0;
    Response response;
};
[[nodiscard]] Result<IpmiReply> decode_ipmi_response(ByteView message);

// Two's complement checksum of bytes (IPMI's 8-bit checksum).
[[nodiscard]] std::uint8_t checksum(ByteView bytes) noexcept;

} // namespace jp::sensors::ipmi::rmcp
