// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/ipmi/libcrypto.hpp"

#include "sensors/vendor_library.hpp"

namespace jp::sensors::ipmi {
namespace {

Result<LoadedApi<LibCrypto>> load() {
    return load_api<LibCrypto>({"libcrypto.so.3"}, "install OpenSSL 3 (Debian: libssl3)",
                               [](Symbols& symbols, LibCrypto& a) {
                                   symbols.required(a.cipher_ctx_new, "EVP_CIPHER_CTX_new");
                                   symbols.required(a.cipher_ctx_free, "EVP_CIPHER_CTX_free");
                                   symbols.required(a.cipher_ctx_set_padding,
                                                    "EVP_CIPHER_CTX_set_padding");
                                   symbols.required(a.cipher_init, "EVP_CipherInit_ex");
                                   symbols.required(a.cipher_update, "EVP_CipherUpdate");
                                   symbols.required(a.cipher_final, "EVP_CipherFinal_ex");
                                   symbols.required(a.aes_128_cbc, "EVP_aes_128_cbc");
                                   symbols.required(a.sha1, "EVP_sha1");
                                   symbols.required(a.sha256, "EVP_sha256");
                                   symbols.required(a.hmac, "HMAC");
                                   symbols.required(a.rand_bytes, "RAND_bytes");
                               });
}

} // namespace

Result<const LibCrypto*> libcrypto() {
    // Loaded on first use (thread-safe), never unloaded: its state lives as long as the process.
    static const Result<LoadedApi<LibCrypto>> loaded = load();
    if (!loaded) {
        return std::unexpected(loaded.error());
    }
    return &loaded->api;
}

} // namespace jp::sensors::ipmi
