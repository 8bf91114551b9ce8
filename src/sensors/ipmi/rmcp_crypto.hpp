// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The primitives RMCP+ needs, over OpenSSL's libcrypto (loaded on first use,
// sensors/ipmi/libcrypto.hpp): HMAC-SHA1 and HMAC-SHA256, AES-CBC-128 without
// padding (RMCP+ pads itself), random bytes.
#include "core/error.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace jp::sensors::ipmi::rmcp {

using Bytes = std::vector<std::uint8_t>;
using ByteView = std::span<const std::uint8_t>;

enum class Hash { sha1, sha256 };

[[nodiscard]] std::size_t digest_size(Hash hash) noexcept; // 20 or 32

// HMAC of data under key; empty when libcrypto cannot be loaded or fails.
[[nodiscard]] Bytes hmac(Hash hash, ByteView key, ByteView data);

// AES-128 in CBC mode over whole 16-byte blocks; key and iv are 16 bytes.
[[nodiscard]] Result<Bytes> aes128_cbc_encrypt(ByteView key, ByteView iv, ByteView plain);
[[nodiscard]] Result<Bytes> aes128_cbc_decrypt(ByteView key, ByteView iv, ByteView cipher);

// Cryptographically strong random bytes (RAND_bytes).
[[nodiscard]] Result<Bytes> random_bytes(std::size_t count);

// Overwrites secret bytes (explicit_bzero) before they are freed.
void wipe(Bytes& secret) noexcept;

// Constant-time comparison of equal-length byte strings.
[[nodiscard]] bool equal_ct(ByteView a, ByteView b) noexcept;

} // namespace jp::sensors::ipmi::rmcp
