// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How late the sampling thread woke for its ticks: exact to the microsecond
// up to 1 ms, in power-of-two millisecond bins above. Written by one thread;
// read when that thread has stopped.
#include <array>
#include <cstdint>
#include <optional>

namespace jp {

class LatenessHistogram {
public:
    void add(std::int64_t late_ns) noexcept;
    void clear() noexcept { *this = LatenessHistogram{}; }
    [[nodiscard]] std::uint64_t count() const noexcept { return m_count; }
    // The lateness (ns) that fraction q (0..1] of the ticks did not exceed:
    // the upper edge of its bin; nothing before the first tick.
    [[nodiscard]] std::optional<std::int64_t> quantile(double q) const noexcept;

private:
    static constexpr int k_fine_bins = 1000; // 1 µs each, up to 1 ms
    static constexpr int k_coarse_bins = 24; // [2^k, 2^(k+1)) ms
    std::array<std::uint32_t, k_fine_bins> m_fine{};
    std::array<std::uint32_t, k_coarse_bins> m_coarse{};
    std::uint64_t m_count = 0;
};

} // namespace jp
