// SPDX-License-Identifier: BSD-3-Clause
#include "trace/damage.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>
#include <fstream>

namespace jp::trace {
namespace {

constexpr std::size_t k_header = 100;
constexpr char k_magic[] = "SQLite format 3"; // and a NUL: 16 bytes

std::uint32_t be32(const unsigned char* p) {
    return (std::uint32_t{p[0]} << 24U) | (std::uint32_t{p[1]} << 16U) |
           (std::uint32_t{p[2]} << 8U) | std::uint32_t{p[3]};
}

} // namespace

std::optional<std::string> file_damage(const std::filesystem::path& path) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) {
        return std::nullopt; // the open error says it
    }
    if (size == 0) {
        return "an empty file (0 bytes), not a trace";
    }
    std::array<unsigned char, k_header> h{};
    std::ifstream in(path, std::ios::binary);
    in.read(reinterpret_cast<char*>(h.data()), static_cast<std::streamsize>(h.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got < sizeof k_magic || std::memcmp(h.data(), k_magic, sizeof k_magic) != 0) {
        return fmt::format("not a trace: a trace is an SQLite file, and this {}-byte file does "
                           "not begin with SQLite's header",
                           size);
    }
    if (got < k_header) {
        return fmt::format("a truncated trace: {} bytes, shorter than SQLite's 100-byte header",
                           size);
    }
    // Page size: 2 bytes big-endian, 1 meaning 65536.
    const unsigned raw = (unsigned{h[16]} << 8U) | unsigned{h[17]};
    const std::uint64_t page = raw == 1 ? 65536U : raw;
    if (page < 512 || (page & (page - 1)) != 0) {
        return fmt::format("a damaged trace: SQLite's header holds a page size of {}", page);
    }
    // The page count is valid only when the version-valid-for number equals the change counter.
    const auto pages = be32(&h[28]);
    if (be32(&h[92]) == be32(&h[24]) && pages > 0 && pages * page > size) {
        return fmt::format("a truncated trace: SQLite's header says {} bytes, the file holds {} "
                           "(cut off while it was copied or written?)",
                           pages * page, size);
    }
    if (size % page != 0) {
        return fmt::format("a truncated trace: {} bytes, not a whole number of {}-byte pages", size,
                           page);
    }
    return std::nullopt;
}

std::unexpected<Error> row_error(const std::filesystem::path& path, const Error& e) {
    return fail(e.kind, path.string(),
                e.kind == ErrorKind::parse
                    ? "a damaged trace: SQLite cannot read it (" + e.detail + ")"
                    : "cannot read the trace: " + e.detail);
}

} // namespace jp::trace
