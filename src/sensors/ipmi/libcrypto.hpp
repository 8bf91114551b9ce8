// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// OpenSSL's libcrypto, loaded when IPMI over LAN first needs it. Linked, it
// and what it pulls in cost every run its load time and about a megabyte and
// a half of resident pages although most nodes never talk RMCP+
// (docs/overhead.md). The prototypes come from OpenSSL's own headers, so the
// pointers have the library's exact C ABI.
#include "core/error.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

namespace jp::sensors::ipmi {

struct LibCrypto {
    decltype(&EVP_CIPHER_CTX_new) cipher_ctx_new = nullptr;
    decltype(&EVP_CIPHER_CTX_free) cipher_ctx_free = nullptr;
    decltype(&EVP_CIPHER_CTX_set_padding) cipher_ctx_set_padding = nullptr;
    decltype(&EVP_CipherInit_ex) cipher_init = nullptr;
    decltype(&EVP_CipherUpdate) cipher_update = nullptr;
    decltype(&EVP_CipherFinal_ex) cipher_final = nullptr;
    decltype(&EVP_aes_128_cbc) aes_128_cbc = nullptr;
    decltype(&EVP_sha1) sha1 = nullptr;
    decltype(&EVP_sha256) sha256 = nullptr;
    decltype(&HMAC) hmac = nullptr;
    decltype(&RAND_bytes) rand_bytes = nullptr;
};

// The process's libcrypto (libcrypto.so.3), loaded once and kept; an error
// that names the library and what to install when it cannot be loaded.
[[nodiscard]] Result<const LibCrypto*> libcrypto();

} // namespace jp::sensors::ipmi
