// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One channel's samples of one run, packed into a block (trace schema 2):
// per sample a header byte, the flags when not zero, the time as a
// delta-of-delta varint and the value as the changed bytes of its XOR with the
// previous value. Exact: every time (ns) and every double (bit for bit, NaN
// included) comes back as written. The layout is in docs/trace-format.md.
#include "core/error.hpp"
#include "core/integrate.hpp"
#include "trace/types.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jp::trace {

// A block is closed when its encoded data reaches this size (it then fits one
// 1 KiB page with its row).
inline constexpr std::size_t k_block_target_bytes = 900;
// At most 20 bytes per sample: header, flags, 10-byte varint, 8 value bytes.
inline constexpr std::size_t k_max_sample_bytes = 20;

class BlockEncoder {
public:
    void add(std::int64_t t_ns, double value, std::uint8_t flags);
    void clear();

    [[nodiscard]] bool empty() const noexcept { return m_count == 0; }
    [[nodiscard]] bool full() const noexcept { return m_bytes.size() >= k_block_target_bytes; }
    [[nodiscard]] std::int64_t count() const noexcept { return m_count; }
    [[nodiscard]] std::string_view bytes() const noexcept { return m_bytes; }
    // Earliest and latest time in the block (samples may come out of order:
    // an interpolated edge is written after later readings).
    [[nodiscard]] std::int64_t t_min() const noexcept { return m_t_min; }
    [[nodiscard]] std::int64_t t_max() const noexcept { return m_t_max; }
    // Smallest and largest value (NaN left out; both NaN if every value is).
    [[nodiscard]] double v_min() const noexcept { return m_v_min; }
    [[nodiscard]] double v_max() const noexcept { return m_v_max; }

private:
    std::string m_bytes;
    std::int64_t m_count = 0;
    std::uint64_t m_prev_t = 0;
    std::uint64_t m_prev_dt = 0;
    std::uint64_t m_prev_bits = 0;
    std::int64_t m_t_min = 0;
    std::int64_t m_t_max = 0;
    double m_v_min = 0;
    double m_v_max = 0;
};

// Appends the `count` samples held in `bytes` to `points`/`flags`. A block
// that ends early, has bytes left over or an impossible header is an error
// naming `where`; nothing is appended then.
Result<void> decode_block(std::string_view bytes,
                          std::int64_t count,
                          std::vector<TimedValue>& points,
                          std::vector<std::uint8_t>& flags,
                          std::string_view where);

} // namespace jp::trace
