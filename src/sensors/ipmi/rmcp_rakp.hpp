// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// RMCP+ session establishment (IPMI 2.0 section 13.17-13.32): Open Session
// Request/Response, RAKP messages 1-4, and the keys they yield (SIK, K1, K2).
#include "core/error.hpp"
#include "sensors/ipmi/rmcp_crypto.hpp"
#include "sensors/ipmi/rmcp_packet.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jp::sensors::ipmi::rmcp {

struct CipherSuite {
    int id = 0;
    Hash hash = Hash::sha1;           // of RAKP, SIK, K1/K2 and integrity
    std::uint8_t auth_alg = 0;        // 1 RAKP-HMAC-SHA1, 3 RAKP-HMAC-SHA256
    std::uint8_t integrity_alg = 0;   // 1 HMAC-SHA1-96, 4 HMAC-SHA256-128
    std::uint8_t confidentiality = 1; // 1 AES-CBC-128
    std::size_t integrity_size = 0;   // 12 or 16: RAKP 4 ICV and packet auth code
};

// Suites 3 (SHA-1) and 17 (SHA-256); nothing else.
[[nodiscard]] std::optional<CipherSuite> cipher_suite(int id) noexcept;

// What both sides know once RAKP 2 has arrived.
struct Handshake {
    CipherSuite suite;
    std::uint32_t console_id = 0; // SIDm: ours
    std::uint32_t bmc_id = 0;     // SIDc: the BMC's
    Bytes console_random;         // Rm, 16 bytes
    Bytes bmc_random;             // Rc, 16 bytes
    Bytes bmc_guid;               // GUIDc, 16 bytes
    std::uint8_t role = 0;        // requested privilege | 0x10 (name-only lookup)
    std::string user;
    Bytes kuid; // the password, zero-padded to 20 bytes (the RAKP key)
};

[[nodiscard]] Bytes password_key(std::string_view password);

[[nodiscard]] Bytes open_session_request(const CipherSuite& suite,
                                         std::uint8_t tag,
                                         std::uint8_t privilege,
                                         std::uint32_t console_id);
struct OpenSessionReply {
    std::uint8_t tag = 0;
    std::uint8_t status = 0; // RAKP status code; 0 = ok
    std::uint8_t privilege = 0;
    std::uint32_t console_id = 0;
    std::uint32_t bmc_id = 0;
    std::uint8_t auth_alg = 0;
    std::uint8_t integrity_alg = 0;
    std::uint8_t confidentiality = 0;
};
[[nodiscard]] Result<OpenSessionReply> parse_open_session_response(ByteView payload);

[[nodiscard]] Bytes rakp1(const Handshake& h, std::uint8_t tag);
struct Rakp2 {
    std::uint8_t tag = 0;
    std::uint8_t status = 0;
    std::uint32_t console_id = 0;
    Bytes bmc_random;
    Bytes bmc_guid;
    Bytes auth_code;
};
[[nodiscard]] Result<Rakp2> parse_rakp2(ByteView payload, const CipherSuite& suite);
[[nodiscard]] Bytes rakp2_auth_code(const Handshake& h);

[[nodiscard]] Bytes rakp3(const Handshake& h, std::uint8_t tag);
[[nodiscard]] Bytes rakp3_auth_code(const Handshake& h);

struct Rakp4 {
    std::uint8_t tag = 0;
    std::uint8_t status = 0;
    std::uint32_t console_id = 0;
    Bytes icv;
};
[[nodiscard]] Result<Rakp4> parse_rakp4(ByteView payload, const CipherSuite& suite);
[[nodiscard]] Bytes rakp4_icv(const Handshake& h, ByteView sik);

// SIK = HMAC(Kuid, Rm | Rc | role | ULENGTH | user); K1, K2 = HMAC(SIK, 20 x 0x01 / 0x02).
[[nodiscard]] Bytes session_integrity_key(const Handshake& h);
[[nodiscard]] SessionKeys session_keys(const CipherSuite& suite, ByteView sik);

// "unauthorized name", "invalid integrity check value", ... for a RAKP status code.
[[nodiscard]] std::string_view rakp_status_text(std::uint8_t status) noexcept;

} // namespace jp::sensors::ipmi::rmcp
