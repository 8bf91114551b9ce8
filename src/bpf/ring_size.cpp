// SPDX-License-Identifier: BSD-3-Clause
#include "bpf/kernel_sampler.hpp"
#include "bpf/tick_record.h"

#include <algorithm>

namespace jp::bpf {

std::size_t ring_bytes_for(std::size_t n, std::int64_t period_ns) noexcept {
    constexpr std::size_t k_page = 4096;
    constexpr std::size_t k_most = std::size_t{256} << 20U;
    constexpr std::size_t k_record = sizeof(jp_tick_record) + 8; // + the ring's own header
    const auto per_second =
        static_cast<std::size_t>(1'000'000'000 / std::max<std::int64_t>(1, period_ns)) + 1;
    const std::size_t want = std::min(k_most, std::max<std::size_t>(1, n) * per_second * k_record);
    std::size_t bytes = k_page;
    while (bytes < want) {
        bytes *= 2;
    }
    return bytes;
}

} // namespace jp::bpf
