// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/ipmi/rmcp_crypto.hpp"

#include "sensors/ipmi/libcrypto.hpp"

#include <cstring>
#include <memory>
#include <string>

namespace jp::sensors::ipmi::rmcp {

namespace {

Result<Bytes> aes128_cbc(ByteView key, ByteView iv, ByteView in, int encrypt) {
    if (key.size() < 16 || iv.size() != 16 || in.size() % 16 != 0) {
        return fail(ErrorKind::internal, "AES-CBC-128", "key, IV or data of a wrong size");
    }
    auto lib = libcrypto();
    if (!lib) {
        return std::unexpected(lib.error());
    }
    const LibCrypto& c = **lib;
    const auto free_ctx = [&c](EVP_CIPHER_CTX* ctx) { c.cipher_ctx_free(ctx); };
    std::unique_ptr<EVP_CIPHER_CTX, decltype(free_ctx)> ctx(c.cipher_ctx_new(), free_ctx);
    if (!ctx ||
        c.cipher_init(ctx.get(), c.aes_128_cbc(), nullptr, key.data(), iv.data(), encrypt) != 1) {
        return fail(ErrorKind::library, "EVP_CipherInit_ex", "AES-128-CBC unavailable");
    }
    c.cipher_ctx_set_padding(ctx.get(), 0);
    Bytes out(in.size() + 16);
    int len = 0;
    int tail = 0;
    if (c.cipher_update(ctx.get(), out.data(), &len, in.data(), static_cast<int>(in.size())) != 1 ||
        c.cipher_final(ctx.get(), out.data() + len, &tail) != 1) {
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
    auto lib = libcrypto();
    if (!lib) {
        return {};
    }
    const LibCrypto& c = **lib;
    const EVP_MD* md = hash == Hash::sha1 ? c.sha1() : c.sha256();
    Bytes out(EVP_MAX_MD_SIZE);
    unsigned int len = 0;
    static const std::uint8_t empty = 0;
    const void* key_ptr = key.empty() ? &empty : key.data();
    if (c.hmac(md, key_ptr, static_cast<int>(key.size()), data.data(), data.size(), out.data(),
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
    auto lib = libcrypto();
    if (!lib) {
        return std::unexpected(lib.error());
    }
    Bytes out(count);
    if ((*lib)->rand_bytes(out.data(), static_cast<int>(count)) != 1) {
        return fail(ErrorKind::library, "RAND_bytes", "no random bytes from libcrypto");
    }
    return out;
}

void wipe(Bytes& secret) noexcept {
    if (!secret.empty()) {
        ::explicit_bzero(secret.data(), secret.size()); // never optimised away
    }
}

bool equal_ct(ByteView a, ByteView b) noexcept {
    if (a.size() != b.size()) {
        return false;
    }
    // Every byte is looked at whatever differs first; the volatile sum keeps
    // the compiler from ending the loop early.
    volatile std::uint8_t diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff = static_cast<std::uint8_t>(diff | (a[i] ^ b[i]));
    }
    return diff == 0;
}

} // namespace jp::sensors::ipmi::rmcp
