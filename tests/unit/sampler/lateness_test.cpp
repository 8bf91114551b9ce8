// SPDX-License-Identifier: BSD-3-Clause
// The tick-lateness histogram: exact to the microsecond below 1 ms, the upper
// edge of a power-of-two millisecond bin above, nothing before any tick.
#include "sampler/lateness.hpp"

#include <gtest/gtest.h>

namespace jp {
namespace {

TEST(Lateness, QuantilesAreTheBinsUpperEdges) {
    LatenessHistogram h;
    EXPECT_FALSE(h.quantile(0.5));
    for (int i = 0; i < 98; ++i) {
        h.add(12'345); // 12 µs late: the [12, 13) µs bin
    }
    h.add(-500);        // early counts as on time
    h.add(300'000'000); // 300 ms: the [256, 512) ms bin
    EXPECT_EQ(h.count(), 100U);
    EXPECT_EQ(h.quantile(0.01), 1'000);
    EXPECT_EQ(h.quantile(0.5), 13'000);
    EXPECT_EQ(h.quantile(0.99), 13'000);
    EXPECT_EQ(h.quantile(1.0), 512'000'000);
    EXPECT_FALSE(h.quantile(0.0));
    EXPECT_FALSE(h.quantile(1.5));
    h.add(std::int64_t{1} << 62); // beyond the last bin: counted in it
    EXPECT_EQ(h.quantile(1.0), (std::int64_t{2} << 23) * 1'000'000);
    h.clear();
    EXPECT_EQ(h.count(), 0U);
}

} // namespace
} // namespace jp
