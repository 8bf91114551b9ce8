// SPDX-License-Identifier: BSD-3-Clause
#include "sampler/lateness.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace jp {

void LatenessHistogram::add(std::int64_t late_ns) noexcept {
    const std::int64_t us = late_ns <= 0 ? 0 : late_ns / 1000;
    if (us < k_fine_bins) {
        ++m_fine[static_cast<std::size_t>(us)];
    } else {
        const auto ms = static_cast<std::uint64_t>(us / 1000);
        const int bin = std::min(k_coarse_bins - 1, static_cast<int>(std::bit_width(ms)) - 1);
        ++m_coarse[static_cast<std::size_t>(bin)];
    }
    ++m_count;
}

std::optional<std::int64_t> LatenessHistogram::quantile(double q) const noexcept {
    if (m_count == 0 || !(q > 0) || q > 1) {
        return std::nullopt;
    }
    const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(m_count)));
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < m_fine.size(); ++i) {
        seen += m_fine[i];
        if (seen >= rank) {
            return static_cast<std::int64_t>(i + 1) * 1000;
        }
    }
    for (std::size_t k = 0; k < m_coarse.size(); ++k) {
        seen += m_coarse[k];
        if (seen >= rank) {
            return (std::int64_t{2} << k) * 1'000'000;
        }
    }
    return std::nullopt; // not reached: the bins hold m_count ticks
}

} // namespace jp
