// SPDX-License-Identifier: BSD-3-Clause
// Sample blocks give back every time and every value bit for bit (out of
// order, extremes, NaN payloads, negative zero), stay small for the series a
// monitor writes, and refuse bytes that are not a block without appending.
#include "trace/block_codec.hpp"

#include <bit>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <random>

namespace jp::trace {
namespace {

struct Sample {
    std::int64_t t = 0;
    double v = 0;
    std::uint8_t f = 0;
};

void expect_round_trip(const std::vector<Sample>& in) {
    BlockEncoder enc;
    for (const auto& s : in) {
        enc.add(s.t, s.v, s.f);
    }
    ASSERT_EQ(enc.count(), static_cast<std::int64_t>(in.size()));
    std::vector<TimedValue> points{{-7, 1.5}}; // decoding appends
    std::vector<std::uint8_t> flags{9};
    const auto r = decode_block(enc.bytes(), enc.count(), points, flags, "t");
    ASSERT_TRUE(r) << r.error().message();
    ASSERT_EQ(points.size(), in.size() + 1);
    for (std::size_t i = 0; i < in.size(); ++i) {
        EXPECT_EQ(points[i + 1].t_ns, in[i].t) << i;
        EXPECT_EQ(std::bit_cast<std::uint64_t>(points[i + 1].value),
                  std::bit_cast<std::uint64_t>(in[i].v))
            << i;
        EXPECT_EQ(flags[i + 1], in[i].f) << i;
    }
}

TEST(BlockCodec, ExtremesComeBackBitForBit) {
    constexpr auto max = std::numeric_limits<std::int64_t>::max();
    constexpr auto min = std::numeric_limits<std::int64_t>::min();
    const double nan_payload = std::bit_cast<double>(std::uint64_t{0x7ff8'dead'beef'0001});
    expect_round_trip({{0, 0.0, 1},
                       {max, -0.0, 0},
                       {min, std::numeric_limits<double>::infinity(), 255},
                       {-1, nan_payload, 0},
                       {5, std::numeric_limits<double>::denorm_min(), 4},
                       {5, -std::numeric_limits<double>::max(), 0},
                       {4, 1e-300, 8},
                       {max, 1e300, 2}});
    expect_round_trip({});
}

TEST(BlockCodec, RandomSeriesComeBackExactly) {
    std::mt19937_64 rng{42};
    for (int round = 0; round < 50; ++round) {
        std::vector<Sample> in;
        std::int64_t t = static_cast<std::int64_t>(rng() >> 20);
        double e = 0;
        const int n = static_cast<int>(rng() % 400);
        for (int i = 0; i < n; ++i) {
            // Jittered ticks, an occasional late (earlier) time, a counter or noise.
            t += 1'000'000 + static_cast<std::int64_t>(rng() % 200'000) - 100'000;
            const auto at = (rng() % 17 == 0) ? t - 3'500'000 : t;
            e += static_cast<double>(rng() % 100'000) * 1e-6;
            const double v = (round % 2 == 0) ? e : std::bit_cast<double>(rng());
            in.push_back({at, v, static_cast<std::uint8_t>(rng() % 9 == 0 ? rng() % 16 : 0)});
        }
        expect_round_trip(in);
    }
}

TEST(BlockCodec, AnEnergyCounterAtOneKilohertzTakesUnderTwelveBytesASample) {
    // What a RAPL zone gives at 1 ms: microjoule steps of a ~60 W load,
    // scheduling jitter of tens of microseconds, cumulative joules as doubles.
    std::mt19937_64 rng{7};
    BlockEncoder enc;
    std::int64_t uj = 0;
    std::int64_t t = 12'345'678'901;
    while (!enc.full()) {
        t += 1'000'000 + static_cast<std::int64_t>(rng() % 60'000) - 30'000;
        uj += 55'000 + static_cast<std::int64_t>(rng() % 10'000);
        enc.add(t, static_cast<double>(uj) * 1e-6, 0);
    }
    const double per_sample =
        static_cast<double>(enc.bytes().size()) / static_cast<double>(enc.count());
    EXPECT_LT(per_sample, 12.0);
    EXPECT_GE(enc.bytes().size(), k_block_target_bytes);
    EXPECT_LT(enc.bytes().size(), k_block_target_bytes + k_max_sample_bytes);
}

TEST(BlockCodec, BoundsAreTheSamplesOwn) {
    BlockEncoder enc;
    enc.add(50, std::nan(""), 0);
    enc.add(10, 3.0, 0);
    enc.add(30, -2.0, 0);
    EXPECT_EQ(enc.t_min(), 10);
    EXPECT_EQ(enc.t_max(), 50);
    EXPECT_EQ(enc.v_min(), -2.0);
    EXPECT_EQ(enc.v_max(), 3.0);
    enc.clear();
    EXPECT_TRUE(enc.empty());
    enc.add(7, 1.0, 0);
    EXPECT_EQ(enc.t_min(), 7);
    EXPECT_EQ(enc.v_max(), 1.0);
}

TEST(BlockCodec, BytesThatAreNoBlockAreOneErrorAndAppendNothing) {
    BlockEncoder enc;
    for (int i = 0; i < 10; ++i) {
        enc.add(i * 1000, i * 0.5, i == 3 ? 1 : 0);
    }
    const std::string good{enc.bytes()};
    auto refused = [&](std::string_view bytes, std::int64_t count, std::string_view why) {
        std::vector<TimedValue> points{{1, 1.0}};
        std::vector<std::uint8_t> flags{0};
        const auto r = decode_block(bytes, count, points, flags, "x.jptrace");
        ASSERT_FALSE(r) << why;
        EXPECT_NE(r.error().message().find("x.jptrace"), std::string::npos);
        EXPECT_NE(r.error().message().find("corrupt sample block"), std::string::npos);
        EXPECT_EQ(points.size(), 1U) << why;
        EXPECT_EQ(flags.size(), 1U) << why;
    };
    refused(good.substr(0, good.size() - 1), 10, "cut short");
    refused(good + '\0', 10, "a byte left over");
    refused(good, 11, "more samples than it holds");
    refused(good, -1, "a negative count");
    refused(good, 1'000'000, "a count that cannot fit");
    refused(std::string{"\x0f\x00", 2}, 1, "header: 15 value bytes");
    refused(std::string{"\x78\x00\x01\x02", 4}, 1, "header: 8 bytes shifted by 7");
    refused(std::string{"\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 11}, 1,
            "a varint of 71 bits");
    std::vector<TimedValue> points;
    std::vector<std::uint8_t> flags;
    EXPECT_TRUE(decode_block(good, 10, points, flags, "x"));
    EXPECT_EQ(points.size(), 10U);
    EXPECT_EQ(flags[3], 1);
}

} // namespace
} // namespace jp::trace
