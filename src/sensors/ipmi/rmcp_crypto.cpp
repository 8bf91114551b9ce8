// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/ipmi/rmcp_crypto.hpp"

#include <memory>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <string>

namespace jp::sensors::ipmi::rmcp {

namespace {

struct CipherCtxFree {
    void operator()(EVP_CIPHER_CTX* ctx) const noexcept { EVP_CIPHER_CTX_free(ctx); }
};

Result<Bytes> aes128_cbc(ByteView key, ByteView iv, ByteView in, int encrypt) {
    if (key.size() < 16 || iv.size() != 16 || in.size() % 16 != 0) {
        return fail(ErrorKind::internal, "AES-CBC-128", "key, IV or data of a wrong size");
    }
    std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree> ctx(EVP_CIPHER_CTX_new());
    if (!ctx || EVP_CipherInit_ex(ctx.get(), EVP_aes_128_cbc(), nullptr, key.data(), iv.data(),
                                  encrypt) != 1) {
        return fail(ErrorKind::library, "EVP_CipherInit_ex", "AES-128-CBC unavailable");
    }
    EVP_CIPHER_CTX_set_padding(ctx.get(), 0);
    Bytes out(in.size() + 16);
    int len = 0;
    int tail = 0;
    if (EVP_CipherUpdate(ctx.get(), out.data(), &len, in.data(), static_cast<int>(in.size())) !=
            1 ||
        EVP_CipherFinal_ex(ctx.get(), out.data() + len, &tail) != 1) {
        return fail(ErrorKind::library, "EVP_CipherUpdate", "AES-128-CBC failed");
    }
    out.resize(static_cast<std::size_t>(len) + static_cast<std::size_t>(tail));
    return out;
}

} // namespace

std::size_t digest_size(Hash hash) noexcept {
    return hash == Hash::sha1 ? 20 : 32;
}

Bytes hmac(Hash hash, ByteView key, ByteView data) {
    const EVP_MD* md = hash == Hash::sha1 ? EVP_sha1() : EVP_sha256();
    Bytes out(EVP_MAX_MD_SIZE);
    unsigned int len = 0;
    static const std::uint8_t empty = 0;
    const void* key_ptr = key.empty() ? &empty : key.data();
    if (HMAC(md, key_ptr, static_cast<int>(key.size()), data.data(), data.size(), out.data(),
             &len) == nullptr) {
        return {};
    }
    out.resize(len);
    return out;
}

Result<Bytes> aes128_cbc_encrypt(ByteView key, ByteView iv, ByteView plain) {
    return aes128_cbc(key, iv, plain, 1);
}

Result<Bytes> aes128_cbc_decrypt(ByteView key, ByteView iv, ByteView cipher) {
    return aes128_cbc(key, iv, cipher, 0);
}

Result<Bytes> random_bytes(std::size_t count) {
    Bytes out(count);
    if (RAND_bytes(out.data(), static_cast<int>(count)) != 1) {
        return fail(ErrorKind::library, "RAND_bytes", "no random bytes from libcrypto");
    }
    return out;
}

void wipe(Bytes& secret) noexcept {
    if (!secret.empty()) {
        OPENSSL_cleanse(secret.data(), secret.size());
    }
}

bool equal_ct(ByteView a, ByteView b) noexcept {
    return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

} // namespace jp::sensors::ipmi::rmcp
