// SPDX-License-Identifier: BSD-3-Clause
#include "fake_sysfs.hpp"
#include "report/distribution.hpp"
#include "trace/writer.hpp"

#include <gtest/gtest.h>

namespace jp::report {
namespace {

constexpr std::int64_t k_ms = 1'000'000;

// 100 ms windows: 8 s at 100 W, then 2 s at 500 W (with one 900 W window).
GridSeries profile() {
    GridSeries g{0, 10'000 * k_ms, 100 * k_ms, {}};
    for (int i = 0; i < 100; ++i) {
        g.watts.push_back(i < 80 ? 100.0 : 500.0);
    }
    g.watts[90] = 900.0;
    return g;
}

TEST(Distribution, PeaksPercentilesAndTimeAboveThreshold) {
    const auto d = power_distribution(profile(), 400.0);
    EXPECT_DOUBLE_EQ(d.peak_w, 900.0);
    ASSERT_TRUE(d.peak_1s_w);
    EXPECT_NEAR(*d.peak_1s_w, 540.0, 1e-9); // ten windows including the 900 W one
    EXPECT_FALSE(d.peak_60s_w) << "a 10 s run has no 60 s window";
    EXPECT_DOUBLE_EQ(d.p50_w, 100.0);
    EXPECT_DOUBLE_EQ(d.p95_w, 500.0);
    EXPECT_DOUBLE_EQ(d.p99_w, 500.0);
    EXPECT_NEAR(d.seconds_above, 2.0, 1e-9);
    EXPECT_NEAR(d.mean_w, (80 * 100.0 + 19 * 500.0 + 900.0) / 100, 1e-9);
}

TEST(Distribution, SixtySecondWindowOnALongRun) {
    GridSeries g{0, 120'000 * k_ms, 1000 * k_ms, {}};
    for (int i = 0; i < 120; ++i) {
        g.watts.push_back(i >= 30 && i < 90 ? 800.0 : 200.0);
    }
    const auto d = power_distribution(g);
    ASSERT_TRUE(d.peak_60s_w);
    EXPECT_DOUBLE_EQ(*d.peak_60s_w, 800.0);
    EXPECT_DOUBLE_EQ(*d.peak_1s_w, 800.0);
}

TEST(Distribution, CoarseSamplesCannotResolveOneSecond) {
    GridSeries g{0, 10'000 * k_ms, 2000 * k_ms, {100, 200, 300, 200, 100}};
    EXPECT_FALSE(power_distribution(g).peak_1s_w.has_value());
    EXPECT_EQ(power_distribution(GridSeries{}).peak_w, 0.0);
}

TEST(Distribution, RatedPowerFromConfigElseSumOfPartLimits) {
    test::FakeSysfs fs;
    std::vector<Channel> chans(2);
    chans[0].name = "cpu0.package";
    chans[0].domain = Domain::cpu_package;
    chans[0].limit_watts = 165;
    chans[1].name = "gpu0";
    chans[1].domain = Domain::gpu;
    chans[1].limit_watts = 700;
    {
        auto w = trace::Writer::create(fs.path("/a.jptrace"), {});
        ASSERT_TRUE(w && w->add_channels(chans) && w->commit());
        auto w2 = trace::Writer::create(fs.path("/b.jptrace"), {{"node.rated_watts", "10200"}});
        ASSERT_TRUE(w2 && w2->add_channels(chans) && w2->commit());
    }
    auto a = trace::Reader::open(fs.path("/a.jptrace"));
    const auto ra = rated_power(*a);
    ASSERT_TRUE(ra);
    EXPECT_DOUBLE_EQ(ra->watts, 865.0);
    EXPECT_NE(ra->source.find("gpu0 700 W"), std::string::npos);
    auto b = trace::Reader::open(fs.path("/b.jptrace"));
    EXPECT_DOUBLE_EQ(rated_power(*b)->watts, 10200.0);
    EXPECT_EQ(rated_power(*b)->source, "config");
}

} // namespace
} // namespace jp::report
