// SPDX-License-Identifier: BSD-3-Clause
// Two configurations differ only beyond both the runs' spread and the sensors'
// bound, and the verdict says by how much at least.
#include "report/difference.hpp"

#include <cmath>
#include <gtest/gtest.h>

namespace jp::report {
namespace {

Stat stat(double mean, double std, std::size_t n, double sensor_half) {
    Stat s{mean, std, n, {}};
    if (sensor_half >= 0) {
        s.sensor = Bound{mean - sensor_half, mean + sensor_half, "edge staleness", {}, {}};
    }
    return s;
}

TEST(Difference, ClearlyLessEnergyWithTheLeastAndTheMostItCouldBe) {
    const auto a = stat(12'410, 310, 5, 20); // the "12.41 kJ ± 0.31 (runs) ± 0.02"
    const auto b = stat(10'000, 200, 5, 20);
    const auto d = difference(b, a);
    EXPECT_EQ(d.verdict, Verdict::less);
    EXPECT_TRUE(d.runs_known);
    EXPECT_TRUE(d.sensor_known);
    // 95 % t-intervals with 4 degrees of freedom (2.776), widened by each sensor bound.
    const double a_half = 2.776 * 310 / std::sqrt(5.0) + 20;
    const double b_half = 2.776 * 200 / std::sqrt(5.0) + 20;
    EXPECT_NEAR(d.ratio_low, (10'000 - b_half) / (12'410 + a_half), 1e-3);
    EXPECT_NEAR(d.ratio_high, (10'000 + b_half) / (12'410 - a_half), 1e-3);
    const auto text = difference_text(d, "A");
    EXPECT_NE(text.find("% less energy than A"), std::string::npos) << text;
    EXPECT_EQ(text.find("one run"), std::string::npos) << text;
    EXPECT_EQ(difference(a, b).verdict, Verdict::more);
}

TEST(Difference, OverlappingRangesAreNoDifferenceAndSaySo) {
    const auto a = stat(1000, 40, 3, 1);
    const auto b = stat(1030, 40, 3, 1); // 3 % apart, within three runs' spread
    const auto d = difference(b, a);
    EXPECT_EQ(d.verdict, Verdict::same);
    EXPECT_LT(d.ratio_low, 1);
    EXPECT_GT(d.ratio_high, 1);
    EXPECT_NE(difference_text(d, "a").find("no difference beyond"), std::string::npos);
}

TEST(Difference, OneRunOrNoSensorBoundIsSaidNotHidden) {
    const auto d = difference(stat(500, 0, 1, 0.5), stat(1000, 0, 1, 0.5));
    EXPECT_EQ(d.verdict, Verdict::less) << "the sensors alone separate them";
    EXPECT_FALSE(d.runs_known);
    EXPECT_NE(difference_text(d, "a").find("one run on a side"), std::string::npos);
    const auto m = difference(stat(500, 10, 3, -1), stat(1000, 10, 3, -1));
    EXPECT_FALSE(m.sensor_known);
    EXPECT_NE(difference_text(m, "a").find("without a sensor bound"), std::string::npos);
}

TEST(Difference, ABaselineThatCouldBeZeroGivesAtLeast) {
    const auto d = difference(stat(100, 0, 1, 1), stat(1, 0, 1, 5)); // baseline 0..6 J
    EXPECT_EQ(d.verdict, Verdict::more);
    EXPECT_TRUE(std::isinf(d.ratio_high));
    EXPECT_NE(difference_text(d, "a").find("at least"), std::string::npos);
}

// How far apart two figures are, in words a reader takes in at once: per cent while the nearer
// end is within half (never "1 × less"), a factor where it may be tenfold ("99–100 % less"
// said nothing of a hundredfold).
TEST(Difference, FarApartIsAFactorNearIsAPercentage) {
    struct Case {
        Stat x;
        Stat baseline;
        const char* says; // how the text begins
    };
    const Case cases[] = {
        {stat(10, 0, 1, 0.5), stat(1000, 0, 1, 0.5), "95–110 × less energy than a"},
        {stat(1000, 0, 1, 0.5), stat(10, 0, 1, 0.5), "95–110 × the energy of a"},
        // Both ends alike: one figure.
        {stat(2100, 0, 1, 0.5), stat(1000, 0, 1, 0.5), "about 2.1 × the energy of a"},
        // Nothing at all: said so, not "at least inf ×".
        {stat(0, 0, 1, 0), stat(1000, 0, 1, 0.5), "no energy at all, against a's"},
        {stat(100, 0, 1, 99), stat(1000, 0, 1, 0.5), "5–1000 × less energy than a"},
        // A near end within half: per cent, with a decimal under 1 %.
        {stat(500, 0, 1, 496), stat(1000, 0, 1, 0), "0.4–100 % less energy than a"},
        {stat(600, 0, 1, 0.5), stat(1000, 0, 1, 0.5), "40–40 % less energy than a"},
        // More: per cent, up to a factor where the far end is tenfold.
        {stat(1000, 0, 1, 890), stat(100, 0, 1, 0), "10 % more to 19 × the energy of a"},
        // The same, against a baseline that may be 0 J: said so, not "at least 0.00 ×".
        {stat(1, 0, 1, 1), stat(1, 0, 1, 1),
         "no difference beyond the runs' spread and the sensors' bound (a's range reaches 0 J)"},
    };
    for (const auto& c : cases) {
        const auto text = difference_text(difference(c.x, c.baseline), "a");
        EXPECT_TRUE(text.starts_with(c.says)) << text << "\n  expected: " << c.says;
    }
}

} // namespace
} // namespace jp::report
