// SPDX-License-Identifier: BSD-3-Clause
// Known answers for the RMCP+ primitives (RFC 2202, RFC 4231, NIST SP 800-38A)
// and round trips of the packet codec and the RAKP messages.
#include "sensors/ipmi/rmcp_crypto.hpp"
#include "sensors/ipmi/rmcp_packet.hpp"
#include "sensors/ipmi/rmcp_rakp.hpp"

#include <gtest/gtest.h>
#include <string>

namespace jp::sensors::ipmi::rmcp {
namespace {

Bytes hex(std::string_view text) {
    Bytes out;
    for (std::size_t i = 0; i + 1 < text.size(); i += 2) {
        out.push_back(
            static_cast<std::uint8_t>(std::stoi(std::string(text.substr(i, 2)), nullptr, 16)));
    }
    return out;
}

Bytes text(std::string_view s) {
    return Bytes(s.begin(), s.end());
}

TEST(RmcpCrypto, HmacSha1Rfc2202) {
    EXPECT_EQ(hmac(Hash::sha1, Bytes(20, 0x0b), text("Hi There")),
              hex("b617318655057264e28bc0b6fb378c8ef146be00"));
    EXPECT_EQ(hmac(Hash::sha1, text("Jefe"), text("what do ya want for nothing?")),
              hex("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"));
}

TEST(RmcpCrypto, HmacSha256Rfc4231) {
    EXPECT_EQ(hmac(Hash::sha256, Bytes(20, 0x0b), text("Hi There")),
              hex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"));
    EXPECT_EQ(hmac(Hash::sha256, text("Jefe"), text("what do ya want for nothing?")),
              hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
}

TEST(RmcpCrypto, PasswordKeyZeroPaddingDoesNotChangeTheHmac) {
    // The RAKP key is the password padded with zeros to 20 bytes; HMAC pads
    // its key with zeros too, so both give RFC 2202's answer for "Jefe".
    EXPECT_EQ(hmac(Hash::sha1, password_key("Jefe"), text("what do ya want for nothing?")),
              hex("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"));
    EXPECT_EQ(password_key("Jefe").size(), 20U);
}

TEST(RmcpCrypto, AesCbc128Sp800_38a) {
    const Bytes key = hex("2b7e151628aed2a6abf7158809cf4f3c");
    const Bytes iv = hex("000102030405060708090a0b0c0d0e0f");
    const Bytes plain = hex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51");
    const Bytes cipher = hex("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2");
    EXPECT_EQ(aes128_cbc_encrypt(key, iv, plain).value(), cipher);
    EXPECT_EQ(aes128_cbc_decrypt(key, iv, cipher).value(), plain);
    EXPECT_FALSE(aes128_cbc_encrypt(key, iv, Bytes(15, 0)).has_value());
}

TEST(RmcpCrypto, ComparesWipesAndDrawsRandomBytes) {
    // libcrypto is loaded on first use (sensors/ipmi/libcrypto.hpp); these run through it.
    const Bytes a = hex("00112233445566778899");
    Bytes b = a;
    EXPECT_TRUE(equal_ct(a, b));
    for (std::size_t i : {0U, 5U, 9U}) { // a difference anywhere is seen
        Bytes c = a;
        c[i] ^= 0x80U;
        EXPECT_FALSE(equal_ct(a, c)) << i;
    }
    EXPECT_FALSE(equal_ct(a, ByteView(a).first(9)));
    EXPECT_TRUE(equal_ct(Bytes{}, Bytes{}));
    wipe(b);
    EXPECT_EQ(b, Bytes(a.size(), 0));
    const auto r1 = random_bytes(16);
    const auto r2 = random_bytes(16);
    ASSERT_TRUE(r1.has_value() && r2.has_value());
    EXPECT_EQ(r1->size(), 16U);
    EXPECT_NE(*r1, *r2); // equal with probability 2^-128
}

TEST(RmcpCrypto, CipherSuites) {
    ASSERT_TRUE(cipher_suite(3).has_value());
    EXPECT_EQ(cipher_suite(3)->auth_alg, 0x01);
    EXPECT_EQ(cipher_suite(3)->integrity_size, 12U);
    ASSERT_TRUE(cipher_suite(17).has_value());
    EXPECT_EQ(cipher_suite(17)->auth_alg, 0x03);
    EXPECT_EQ(cipher_suite(17)->integrity_alg, 0x04);
    EXPECT_EQ(cipher_suite(17)->integrity_size, 16U);
    EXPECT_FALSE(cipher_suite(0).has_value());
    EXPECT_FALSE(cipher_suite(1).has_value());
}

SessionKeys keys_for(int suite_id) {
    const CipherSuite suite = *cipher_suite(suite_id);
    return session_keys(suite, Bytes(digest_size(suite.hash), 0x5a));
}

class PacketRoundTrip : public ::testing::TestWithParam<int> {};

TEST_P(PacketRoundTrip, SealedPacketsDecodeToTheSamePayload) {
    const SessionKeys keys = keys_for(GetParam());
    EXPECT_EQ(keys.k1.size(), digest_size(keys.hash));
    for (std::size_t size = 0; size < 40; ++size) {
        Packet p{Payload::ipmi, 0x12345678, static_cast<std::uint32_t>(size + 1),
                 true,          true,       Bytes(size, static_cast<std::uint8_t>(size))};
        const Bytes wire = encode_packet(p, &keys).value();
        EXPECT_EQ((wire.size() - 4) % 4, keys.integrity_size % 4); // pad to a multiple of 4
        const Packet back = decode_packet(wire, &keys).value();
        EXPECT_EQ(back.payload, p.payload);
        EXPECT_EQ(back.session_id, 0x12345678U);
        EXPECT_EQ(back.sequence, size + 1);
        EXPECT_TRUE(back.encrypted);
        EXPECT_TRUE(back.authenticated);
    }
}

TEST_P(PacketRoundTrip, TamperedOrForeignPacketsAreRefused) {
    const SessionKeys keys = keys_for(GetParam());
    const Bytes wire =
        encode_packet(Packet{Payload::ipmi, 7, 1, true, true, Bytes{1, 2, 3}}, &keys).value();
    for (std::size_t i = 4; i < wire.size(); ++i) {
        Bytes bad = wire;
        bad[i] ^= 0x01;
        EXPECT_FALSE(decode_packet(bad, &keys).has_value()) << "flipped byte " << i;
    }
    SessionKeys other = keys_for(GetParam() == 3 ? 17 : 3);
    EXPECT_FALSE(decode_packet(wire, &other).has_value());
    EXPECT_FALSE(decode_packet(wire, nullptr).has_value());
}

INSTANTIATE_TEST_SUITE_P(CipherSuites, PacketRoundTrip, ::testing::Values(3, 17));

TEST(RmcpPacket, ClearPacketLayout) {
    const Bytes wire =
        encode_packet(Packet{Payload::open_session_request, 0, 0, false, false, Bytes{0xAA}},
                      nullptr)
            .value();
    EXPECT_EQ(wire, hex("0600ff07"
                        "06"
                        "10"
                        "00000000"
                        "00000000"
                        "0100"
                        "aa"));
}

TEST(RmcpPacket, IpmiMessageChecksumsAndReply) {
    // Get Device ID (NetFn App 0x06, cmd 0x01): 20 18 c8 | 81 04 01 | 7a
    const Bytes req = encode_ipmi_request(Request{0x06, 0x01, {}}, 1);
    EXPECT_EQ(req, hex("2018c88104017a"));
    Bytes reply = {0x81, 0x1C, 0x00, 0x20, 0x04, 0x01, 0x00, 0x42};
    reply[2] = checksum(ByteView(reply).first(2));
    reply.push_back(checksum(ByteView(reply).subspan(3)));
    const IpmiReply r = decode_ipmi_response(reply).value();
    EXPECT_EQ(r.netfn, 0x07);
    EXPECT_EQ(r.cmd, 0x01);
    EXPECT_EQ(r.rq_seq, 1);
    EXPECT_EQ(r.response.completion, 0x00);
    EXPECT_EQ(r.response.data, Bytes{0x42});
    reply.back() ^= 0xFF;
    EXPECT_FALSE(decode_ipmi_response(reply).has_value());
}

TEST(RmcpRakp, MessagesHaveTheSpecifiedLayout) {
    const CipherSuite suite = *cipher_suite(17);
    const Bytes open = open_session_request(suite, 5, 4, 0x01020304);
    EXPECT_EQ(open, hex("05040000"
                        "04030201"
                        "0000000803000000"
                        "0100000804000000"
                        "0200000801000000"));
    Handshake h;
    h.suite = suite;
    h.bmc_id = 0xA1B2C3D4;
    h.console_random = Bytes(16, 0x11);
    h.role = 0x14;
    h.user = "admin";
    const Bytes r1 = rakp1(h, 5);
    EXPECT_EQ(r1.size(), 28U + 5U);
    EXPECT_EQ(Bytes(r1.begin() + 4, r1.begin() + 8), hex("d4c3b2a1"));
    EXPECT_EQ(r1[24], 0x14);
    EXPECT_EQ(r1[27], 5);
}

TEST(RmcpRakp, KeyDerivationMatchesItsDefinition) {
    // SIK = HMAC(Kuid, Rm | Rc | role | ULENGTH | name); K1 = HMAC(SIK, 20 x 01), K2 = (20 x 02).
    for (int id : {3, 17}) {
        Handshake h;
        h.suite = *cipher_suite(id);
        h.console_random = Bytes(16, 0x01);
        h.bmc_random = Bytes(16, 0x02);
        h.role = 0x14;
        h.user = "admin";
        h.kuid = password_key("secret");
        Bytes in = h.console_random;
        in.insert(in.end(), h.bmc_random.begin(), h.bmc_random.end());
        in.push_back(0x14);
        in.push_back(5);
        in.insert(in.end(), h.user.begin(), h.user.end());
        const Bytes sik = session_integrity_key(h);
        EXPECT_EQ(sik, hmac(h.suite.hash, text("secret"), in));
        const SessionKeys k = session_keys(h.suite, sik);
        EXPECT_EQ(k.k1, hmac(h.suite.hash, sik, Bytes(20, 0x01)));
        EXPECT_EQ(k.k2, hmac(h.suite.hash, sik, Bytes(20, 0x02)));
        EXPECT_EQ(rakp4_icv(h, sik).size(), h.suite.integrity_size);
    }
}

TEST(RmcpRakp, RepliesWithAnErrorStatusParseWithoutTheirBody) {
    const CipherSuite suite = *cipher_suite(3);
    EXPECT_EQ(parse_rakp2(Bytes{7, 0x0D}, suite).value().status, 0x0D);
    EXPECT_EQ(parse_open_session_response(Bytes{7, 0x11}).value().status, 0x11);
    EXPECT_FALSE(parse_rakp2(Bytes(30, 0), suite).has_value());
    EXPECT_FALSE(parse_rakp4(Bytes(10, 0), suite).has_value());
    EXPECT_EQ(rakp_status_text(0x0D), "unauthorized name");
}

} // namespace
} // namespace jp::sensors::ipmi::rmcp
