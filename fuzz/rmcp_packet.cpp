// SPDX-License-Identifier: BSD-3-Clause
// Fuzzes what a BMC (or anything at its address) sends the RMCP+ client: the
// packet framing with and without session keys (integrity, AES-CBC-128 and
// its padding), the Open Session and RAKP 2/4 replies, the IPMI message.
#include "sensors/ipmi/rmcp_packet.hpp"

#include "sensors/ipmi/rmcp_rakp.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>

using namespace jp::sensors::ipmi::rmcp;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const SessionKeys sha1 = session_keys(*cipher_suite(3), Bytes(20, 0x5a));
    static const SessionKeys sha256 = session_keys(*cipher_suite(17), Bytes(32, 0x5a));
    const ByteView in(data, size);
    (void)decode_packet(in, nullptr);
    (void)decode_packet(in, &sha1);
    (void)decode_packet(in, &sha256);
    (void)parse_open_session_response(in);
    (void)parse_rakp2(in, *cipher_suite(3));
    (void)parse_rakp2(in, *cipher_suite(17));
    (void)parse_rakp4(in, *cipher_suite(3));
    (void)parse_rakp4(in, *cipher_suite(17));
    (void)decode_ipmi_response(in);
    // Round trip through the sealed form: what is encoded decodes to itself.
    for (const SessionKeys* keys : {&sha1, &sha256}) {
        const Packet p{Payload::ipmi, 1, 2, true, true, Bytes(in.begin(), in.end())};
        if (auto wire = encode_packet(p, keys)) {
            auto back = decode_packet(*wire, keys);
            if (!back || back->payload != p.payload) {
                __builtin_trap();
            }
        }
    }
    return 0;
}
