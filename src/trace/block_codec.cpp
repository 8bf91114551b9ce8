// SPDX-License-Identifier: BSD-3-Clause
#include "trace/block_codec.hpp"

#include <bit>
#include <cmath>
#include <fmt/format.h>

namespace jp::trace {
namespace {

// Header byte: bits 0-3 how many bytes of the XOR follow (0..8), bits 4-6 how
// many zero bytes were cut from its low end (0..7), bit 7 a flags byte follows.
constexpr std::uint8_t k_length_mask = 0x0F;
constexpr int k_shift_bits = 4;
constexpr std::uint8_t k_shift_mask = 0x07;
constexpr std::uint8_t k_has_flags = 0x80;
constexpr int k_max_varint_bytes = 10;

void put_varint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7F) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

// Zigzag: small negative and positive numbers both become small.
std::uint64_t zigzag(std::uint64_t v) {
    return (v << 1) ^ (0 - (v >> 63));
}
std::uint64_t unzigzag(std::uint64_t v) {
    return (v >> 1) ^ (0 - (v & 1));
}

class Cursor {
public:
    explicit Cursor(std::string_view bytes) : m_bytes(bytes) {}
    [[nodiscard]] bool done() const { return m_pos == m_bytes.size(); }
    bool byte(std::uint8_t& out) {
        if (m_pos >= m_bytes.size()) {
            return false;
        }
        out = static_cast<std::uint8_t>(m_bytes[m_pos++]);
        return true;
    }
    bool varint(std::uint64_t& out) {
        out = 0;
        for (int i = 0; i < k_max_varint_bytes; ++i) {
            std::uint8_t b = 0;
            if (!byte(b) || (i == k_max_varint_bytes - 1 && b > 1)) {
                return false;
            }
            out |= static_cast<std::uint64_t>(b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                return true;
            }
        }
        return false;
    }
    bool little_endian(int n, std::uint64_t& out) {
        out = 0;
        for (int i = 0; i < n; ++i) {
            std::uint8_t b = 0;
            if (!byte(b)) {
                return false;
            }
            out |= static_cast<std::uint64_t>(b) << (8 * i);
        }
        return true;
    }

private:
    std::string_view m_bytes;
    std::size_t m_pos = 0;
};

} // namespace

void BlockEncoder::add(std::int64_t t_ns, double value, std::uint8_t flags) {
    // Unsigned arithmetic: wraps instead of overflowing on any input.
    const auto t = static_cast<std::uint64_t>(t_ns);
    const std::uint64_t dt = t - m_prev_t;
    const auto bits = std::bit_cast<std::uint64_t>(value);
    const std::uint64_t x = bits ^ m_prev_bits;
    int length = 0;
    int shift = 0;
    if (x != 0) {
        shift = std::countr_zero(x) / 8;
        length = 8 - shift - std::countl_zero(x) / 8;
    }
    auto header = static_cast<std::uint8_t>(length | (shift << k_shift_bits));
    if (flags != 0) {
        header |= k_has_flags;
    }
    m_bytes.push_back(static_cast<char>(header));
    if (flags != 0) {
        m_bytes.push_back(static_cast<char>(flags));
    }
    put_varint(m_bytes, zigzag(dt - m_prev_dt));
    const std::uint64_t kept = x >> (8 * shift);
    for (int i = 0; i < length; ++i) {
        m_bytes.push_back(static_cast<char>((kept >> (8 * i)) & 0xFF));
    }
    m_prev_t = t;
    m_prev_dt = dt;
    m_prev_bits = bits;
    if (m_count == 0) {
        m_t_min = m_t_max = t_ns;
        m_v_min = m_v_max = value;
    } else {
        m_t_min = std::min(m_t_min, t_ns);
        m_t_max = std::max(m_t_max, t_ns);
        if (!std::isnan(value)) {
            m_v_min = std::isnan(m_v_min) ? value : std::min(m_v_min, value);
            m_v_max = std::isnan(m_v_max) ? value : std::max(m_v_max, value);
        }
    }
    ++m_count;
}

void BlockEncoder::clear() {
    m_bytes.clear();
    m_count = 0;
    m_prev_t = m_prev_dt = m_prev_bits = 0;
}

Result<void> decode_block(std::string_view bytes,
                          std::int64_t count,
                          std::vector<TimedValue>& points,
                          std::vector<std::uint8_t>& flags,
                          std::string_view where) {
    auto bad = [&](std::string_view why) -> Result<void> {
        return fail(ErrorKind::parse, std::string{where},
                    fmt::format("corrupt sample block: {}", why));
    };
    // Every sample takes at least two bytes (header and time).
    if (count < 0 || static_cast<std::uint64_t>(count) > bytes.size() / 2) {
        return bad(fmt::format("{} samples cannot fit in {} bytes", count, bytes.size()));
    }
    // No reserve() here: called once per block, an exact reserve would defeat
    // the vectors' geometric growth and copy everything at every block.
    const std::size_t first = points.size();
    Cursor in{bytes};
    std::uint64_t t = 0;
    std::uint64_t dt = 0;
    std::uint64_t bits = 0;
    for (std::int64_t i = 0; i < count; ++i) {
        std::uint8_t header = 0;
        std::uint8_t f = 0;
        std::uint64_t dod = 0;
        std::uint64_t x = 0;
        bool ok = in.byte(header);
        const int length = header & k_length_mask;
        const int shift = (header >> k_shift_bits) & k_shift_mask;
        if (ok && length + shift > 8) {
            points.resize(first);
            flags.resize(first);
            return bad(fmt::format("sample {} has an impossible header 0x{:02x}", i, header));
        }
        ok = ok && ((header & k_has_flags) == 0 || in.byte(f)) && in.varint(dod) &&
             in.little_endian(length, x);
        if (!ok) {
            points.resize(first);
            flags.resize(first);
            return bad(fmt::format("it ends inside sample {} of {}", i, count));
        }
        dt += unzigzag(dod);
        t += dt;
        bits ^= x << (8 * shift);
        points.push_back({static_cast<std::int64_t>(t), std::bit_cast<double>(bits)});
        flags.push_back(f);
    }
    if (!in.done()) {
        points.resize(first);
        flags.resize(first);
        return bad(fmt::format("bytes left after its {} samples", count));
    }
    return {};
}

} // namespace jp::trace
