// SPDX-License-Identifier: BSD-3-Clause
#include "core/duration.hpp"
#include "core/integrate.hpp"

#include <gtest/gtest.h>
#include <vector>

namespace jp {
namespace {

TEST(Duration, ParsesUnits) {
    EXPECT_EQ(parse_duration("500ms")->count(), 500'000'000);
    EXPECT_EQ(parse_duration("2s")->count(), 2'000'000'000);
    EXPECT_EQ(parse_duration("1m")->count(), 60'000'000'000);
    EXPECT_EQ(parse_duration("0")->count(), 0); // zero needs no unit
    EXPECT_EQ(parse_duration("250us")->count(), 250'000);
}

TEST(Duration, RejectsBadInputWithOneLine) {
    for (const char* bad : {"", "ms", "5 parsecs", "-1s", "1e30h", "nan"}) {
        auto d = parse_duration(bad);
        ASSERT_FALSE(d) << bad;
        EXPECT_EQ(d.error().kind, ErrorKind::config);
        EXPECT_EQ(d.error().message().find('\n'), std::string::npos);
    }
}

TEST(Duration, ABareNumberIsAnErrorThatSuggestsAUnit) {
    // "-i 5" could mean 5 s or 5 ms: a sampler at the wrong rate by 1000x is
    // worse than a one-line error.
    for (const char* bare : {"5", "1.5", "0.5"}) {
        auto d = parse_duration(bare);
        ASSERT_FALSE(d) << bare;
        EXPECT_NE(d.error().message().find("has no unit: write e.g. " + std::string{bare} + "s"),
                  std::string::npos)
            << d.error().message();
    }
}

TEST(Duration, Hms) {
    EXPECT_EQ(format_hms(3723.4), "01:02:03");
    EXPECT_EQ(format_hms(-1), "--:--:--");
}

TEST(Integrate, TrapezoidOverRamp) {
    // P(t) = 100 + 10 t W sampled each second; exact for a linear profile.
    std::vector<TimedValue> s;
    for (int i = 0; i <= 10; ++i) {
        s.push_back({i * 1'000'000'000LL, 100.0 + 10.0 * i});
    }
    // Over [0.5 s, 7.25 s]: ∫ = 100 Δt + 5 (t1² − t0²)
    const double t0 = 0.5;
    const double t1 = 7.25;
    const double expect = 100 * (t1 - t0) + 5 * (t1 * t1 - t0 * t0);
    EXPECT_NEAR(trapezoid_joules(s, 500'000'000, 7'250'000'000), expect, 1e-9);
}

TEST(Integrate, HoldsOutsideSamplesAndEmpty) {
    std::vector<TimedValue> s{{1'000'000'000, 50.0}};
    EXPECT_NEAR(trapezoid_joules(s, 0, 2'000'000'000), 100.0, 1e-9);
    EXPECT_EQ(trapezoid_joules({}, 0, 10), 0.0);
    EXPECT_DOUBLE_EQ(interpolate(s, 5), 50.0);
}

TEST(Integrate, AStepAtAWindowsEndCountsItsLowerSide) {
    // A held-back series steps from 20 W to 40 W at t = 10 (two readings at one time).
    const std::vector<TimedValue> s{{0, 20}, {10, 20}, {10, 40}, {20, 40}};
    EXPECT_DOUBLE_EQ(interpolate(s, 10), 40.0) << "from the right: the step's upper side";
    EXPECT_DOUBLE_EQ(interpolate_before(s, 10), 20.0);
    EXPECT_DOUBLE_EQ(trapezoid_joules(s, 0, 10), 20 * 10 * 1e-9) << "not (20 + 40) / 2";
    EXPECT_DOUBLE_EQ(trapezoid_joules(s, 10, 20), 40 * 10 * 1e-9);
    EXPECT_DOUBLE_EQ(trapezoid_joules(s, 0, 20), 60 * 10 * 1e-9);
}

} // namespace
} // namespace jp
