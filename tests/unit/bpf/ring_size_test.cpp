// SPDX-License-Identifier: BSD-3-Clause
// The kernel sampler's ring: sized to hold what it is asked to hold, always a size the
// kernel takes (a power of two from a page to 256 MiB); any other size asked for is refused
// in one line before anything is loaded. Runs as anyone: nothing here needs the kernel.
#include "bpf/kernel_sampler.hpp"
#include "bpf/tick_record.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <unistd.h>

namespace jp::bpf {
namespace {

constexpr std::size_t k_record = sizeof(jp_tick_record) + 8;

// This kernel's page, where the smallest ring starts.
std::size_t page() {
    return std::max(k_ring_page, static_cast<std::size_t>(::getpagesize()));
}

bool kernel_takes(std::size_t bytes) {
    return bytes >= page() && bytes <= k_ring_most && (bytes & (bytes - 1)) == 0;
}

TEST(RingSize, HoldsWhatItIsAskedToHoldAndNoMoreThanTwiceThat) {
    struct Case {
        std::size_t n;
        std::int64_t period_ns;
        std::int64_t held_ns;
    };
    for (const auto& c : {Case{1, 1'000'000, 8'000'000'000}, Case{4, 1'000'000, 8'000'000'000},
                          Case{3, 10'000'000, 1'000'000'000}, Case{64, 1'000'000, 2'000'000'000},
                          Case{2, 100'000'000, 100'000'000}}) {
        const auto bytes = ring_bytes_for(c.n, c.period_ns, c.held_ns);
        const auto need = c.n * static_cast<std::size_t>(c.held_ns / c.period_ns + 1) * k_record;
        EXPECT_TRUE(kernel_takes(bytes)) << bytes;
        EXPECT_GE(bytes, need) << c.n << " counters, " << c.held_ns << " ns held";
        EXPECT_TRUE(bytes == page() || bytes < 2 * need) << bytes << " for " << need;
    }
}

TEST(RingSize, NeverMoreThanTheKernelTakesWhateverIsAsked) {
    EXPECT_EQ(ring_bytes_for(64, 1, INT64_MAX), k_ring_most);
    EXPECT_EQ(ring_bytes_for(SIZE_MAX, 1, 1'000'000'000), k_ring_most) << "no overflow";
    EXPECT_EQ(ring_bytes_for(0, 0, 0), page()) << "nonsense in, the smallest ring out";
    EXPECT_EQ(ring_bytes_for(1, 1'000'000, -5), page());
}

TEST(RingSize, ASizeTheKernelWouldNotTakeIsRefusedInOneLine) {
    const CounterSpec one{-1, 0};
    for (const std::size_t bytes :
         {std::size_t{5000}, std::size_t{2048}, k_ring_most * 2, std::size_t{3} << 20U}) {
        Options o;
        o.ring_bytes = bytes;
        const auto r = KernelSampler::start({&one, 1}, o);
        ASSERT_FALSE(r) << bytes;
        if (!built_in()) {
            continue; // this build has no sampler at all: it says that instead
        }
        EXPECT_NE(r.error().find("a ring buffer of " + std::to_string(bytes) + " bytes"),
                  std::string::npos)
            << r.error();
        EXPECT_EQ(r.error().find('\n'), std::string::npos) << r.error();
    }
}

} // namespace
} // namespace jp::bpf
