// SPDX-License-Identifier: BSD-3-Clause
// Short jobs are shown in units that fit them, the same way in every table.
#include "fake_sysfs.hpp"
#include "report/compare.hpp"
#include "report/format.hpp"
#include "report/units.hpp"
#include "trace_builder.hpp"

#include <gtest/gtest.h>

namespace jp::report {
namespace {

TEST(Units, EnergyTakesTheUnitThatFitsItsSize) {
    EXPECT_EQ(energy_text(0.2123), "0.212 J");
    EXPECT_EQ(energy_text(42.0), "42.00 J");
    EXPECT_EQ(energy_text(999.0), "999.0 J");
    EXPECT_EQ(energy_text(1764600.0), "1764.600 kJ");
    EXPECT_EQ(energy_text(2.5e7), "25.000 MJ");
    EXPECT_EQ(energy_text(Stat{1500, 12, 3, {}}), "1.500 ± 0.012 kJ");
}

TEST(Units, AFigureTheColumnsUnitWouldZeroIsGivenInItsOwn) {
    const auto kj = energy_unit(5000.0);
    EXPECT_EQ(energy_pm(Stat{0.2, 0, 1, {}}, kj), "0.200 J") << "not 0.000 in a kJ column";
    EXPECT_EQ(energy_pm(Stat{0.5, 0, 1, {}}, kj), "0.500 J") << "not 0.001 kJ, twice its size";
    EXPECT_EQ(energy_pm(Stat{9.9, 0.2, 2, {}}, kj), "9.900 ± 0.200 J") << "one digit in kJ";
    EXPECT_EQ(energy_pm(Stat{11.24, 0.15, 2, {}}, kj), "11.24 ± 0.15 J") << "not 0.011 ± 0.000";
    EXPECT_EQ(energy_pm(Stat{100, 0, 1, {}}, kj), "0.100") << "three significant digits stay";
    const auto j = energy_unit(500.0); // one decimal
    EXPECT_EQ(energy_pm(Stat{0.04, 0, 1, {}}, j), "0.040 J") << "not 0.0 in a J column";
    EXPECT_EQ(energy_pm(Stat{5, 0, 1, {}}, j), "5.0") << "two significant digits in a J column";
    EXPECT_EQ(energy_pm(Stat{-5, 0, 1, {}}, kj), "-5.000 J") << "a negative share too";
    EXPECT_EQ(energy_pm(Stat{0, 0, 1, {}}, kj), "0.000") << "a true zero stays";
    EXPECT_EQ(energy_pm(Stat{1500, 0, 1, {}}, kj), "1.500");
    EXPECT_EQ(energy_pm(Stat{1e-9, 0, 1, {}}, energy_unit(1e-9)), "0.000") << "no smaller unit";
}

TEST(Units, TheSensorsColumnIsInTheUnitOfTheFigureBesideIt) {
    const auto kj = energy_unit(5000.0);
    const Stat small{9, 0, 1, Bound{8.9, 9.1, "resolution", {}, {}}};
    EXPECT_EQ(energy_pm(small, kj), "9.000 J");
    EXPECT_EQ(sensor_pm(small, kj), "0.100 J") << "not 0.000, in kJ without a name";
    const Stat large{2500, 0, 1, Bound{2490, 2510, "resolution", {}, {}}};
    EXPECT_EQ(sensor_pm(large, kj), "0.010") << "the column's own unit is not named";
    const Stat skew{9, 0, 1, Bound{8.99, 10, "gap between readings", {}, {}}};
    EXPECT_EQ(sensor_pm(skew, kj), "+1.000/−0.010 J");
}

TEST(Units, ARangeHasTheDecimalsThatTellItsEndsApart) {
    EXPECT_EQ(energy_range_text(466'612'345.0, 466'612'890.0), "466.612–466.613 MJ");
    EXPECT_EQ(energy_range_text(980.0, 1020.0), "0.980–1.020 kJ");
    EXPECT_EQ(energy_range_text(1'000'001.0, 1'000'002.0), "1000.001–1000.002 kJ");
    EXPECT_EQ(energy_range_text(1'000'000.2, 1'000'000.4), "1000.000–1000.001 kJ")
        << "rounded outward";
    EXPECT_EQ(energy_range_text(1000.6, 1002.6), "1.000–1.003 kJ") << "holds the range";
    EXPECT_EQ(energy_range_text(5.0, 5.0), "5.000–5.000 J");
    EXPECT_EQ(energy_range_text(-0.5, 2.0), "-0.500–2.000 J");
    EXPECT_EQ(energy_range_text(-0.0000001, 0.5), "0.000–0.500 J") << "a crumb, and no -0.000";
    EXPECT_EQ(energy_range_text(-0.0004, 0.5), "-0.001–0.500 J") << "below zero stays so";
    EXPECT_EQ(energy_range_text(3199.99, 4800.01), "3.200–4.800 kJ") << "crumbs of arithmetic";
    EXPECT_EQ(energy_range_text(0.0, 0.5), "0.000–0.500 J") << "no -0.000";
}

TEST(Units, TheSensorsColumnGivesBothSidesOfABoundFarFromCentred) {
    const EnergyUnit j{"J", 1, 2};
    const auto with = [](double mean, double low, double high) {
        return Stat{mean, 0, 1, Bound{low, high, "gap between readings", {}, {}}};
    };
    EXPECT_EQ(sensor_pm(with(55.34, 55.23, 64.43), j), "+9.09/−0.11"); // a channel lost part-way
    EXPECT_EQ(sensor_pm(with(10, 9, 11.5), j), "1.25");                // near enough centred
    EXPECT_EQ(sensor_pm(with(1, 0, 3), j), "n/m");
    EXPECT_EQ(sensor_pm(Stat{10, 0, 1, {}}, j), "-");
    EXPECT_EQ(sensor_pm(with(10, 10 - 1e-4, 10 + 1e-4), j), "<0.01");
}

TEST(Units, RuntimeHasDecimalsUnderAMinute) {
    EXPECT_EQ(runtime_text(0.0114), "0.011 s");
    EXPECT_EQ(runtime_text(8.05), "8.050 s");
    EXPECT_EQ(runtime_text(1830), "00:30:30");
    EXPECT_EQ(runtime_pm(Stat{8.05, 0.01, 3, {}}), "8.050 ± 0.010 s");
}

TEST(Units, AShortJobsTableIsInJoulesAndSeconds) {
    test::FakeSysfs fs;
    test::TraceBuilder b{fs.path("/s.jptrace"),
                         {test::channel("node", Domain::node, Quantity::energy)}};
    b.run(test::make_run("short", 0.05, test::flat(20), 0.01)); // 1 J over 50 ms
    const auto g = summarize_traces(std::vector{b.path()});
    ASSERT_TRUE(g);
    const auto text = format_text(*g, FormatOptions{});
    EXPECT_NE(text.find("Consumption [J]"), std::string::npos) << text;
    EXPECT_NE(text.find("1.000"), std::string::npos) << text;
    EXPECT_NE(text.find("0.050 s"), std::string::npos) << text;
    const auto table = text.substr(0, text.find("\n\n"));
    EXPECT_EQ(table.find("0.000"), std::string::npos) << "no figure rounds away: " << table;
}

} // namespace
} // namespace jp::report
