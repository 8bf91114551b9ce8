// SPDX-License-Identifier: BSD-3-Clause
#include "data/load_data.hpp"
#include "data/synthetic_load.hpp"
#include "temp_dir.hpp"

#include <cmath>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>

namespace jp::workload {
namespace {

std::string csv_of(const std::vector<std::pair<std::string, std::string>>& rows,
                   const std::string& column = "load") {
    std::string out = "start,end," + column + "\n";
    for (const auto& [start, value] : rows) {
        out += start + "+00:00," + start + "+00:00," + value + "\n";
    }
    return out;
}

// Hour h of day d (from 2015-01-01) as a CSV time.
std::string at(int d, int h) {
    return fmt::format("2015-01-{:02} {:02}:00:00", d + 1, h);
}

// d days of hourly readings 1000·(d+1) + h, so every hour is distinct.
LoadSeries days(int n) {
    LoadSeries s{"xx", hour_of_year_start(2015), {}};
    for (int d = 0; d < n; ++d) {
        for (int h = 0; h < 24; ++h) {
            s.mw.push_back(1000.0 * (d + 1) + h);
        }
    }
    return s;
}

TEST(LoadCsv, ParsesTheStudyFormatAndAnyLoadColumnName) {
    const auto text = csv_of({{at(0, 0), "70929.0"}, {at(0, 1), "69773.0"}}, "MW_load");
    auto s = parse_load_csv(text, "se", "se.csv");
    ASSERT_TRUE(s) << s.error().message();
    EXPECT_EQ(s->country, "se");
    EXPECT_EQ(s->first_hour, hour_of_year_start(2015));
    EXPECT_EQ(s->mw, (std::vector<double>{70929.0, 69773.0}));
}

TEST(LoadCsv, HonoursUtcOffsetsAndAveragesSubHourlyRows) {
    const std::string text = "start,end,load\n"
                             "2015-01-01 01:00:00+01:00,x,10\n" // 00:00 UTC
                             "2015-01-01T00:15:00Z,x,20\n"
                             "2015-01-01 01:00:00,x,5\n";
    auto s = parse_load_csv(text, "x", "x.csv");
    ASSERT_TRUE(s) << s.error().message();
    EXPECT_EQ(s->first_hour, hour_of_year_start(2015));
    ASSERT_EQ(s->mw.size(), 2U);
    EXPECT_DOUBLE_EQ(s->mw[0], 15.0);
    EXPECT_DOUBLE_EQ(s->mw[1], 5.0);
}

TEST(LoadCsv, MissingHoursBecomeGapsOnTheGrid) {
    auto s = parse_load_csv(csv_of({{at(0, 0), "1"}, {at(0, 3), "4"}}), "x", "x.csv");
    ASSERT_TRUE(s);
    ASSERT_EQ(s->mw.size(), 4U);
    EXPECT_TRUE(std::isnan(s->mw[1]));
    EXPECT_TRUE(std::isnan(s->mw[2]));
}

TEST(LoadCsv, ErrorsNameTheLine) {
    auto disorder = parse_load_csv(csv_of({{at(0, 1), "1"}, {at(0, 0), "2"}}), "x", "x.csv");
    ASSERT_FALSE(disorder);
    EXPECT_EQ(disorder.error().where, "x.csv:3");
    auto number = parse_load_csv(csv_of({{at(0, 0), "12MW"}}), "x", "x.csv");
    ASSERT_FALSE(number);
    EXPECT_NE(number.error().message().find("12MW"), std::string::npos);
    auto time = parse_load_csv("start,end,load\n2015-13-01 00:00:00,x,1\n", "x", "x.csv");
    ASSERT_FALSE(time);
    EXPECT_EQ(time.error().where, "x.csv:2");
    EXPECT_FALSE(parse_load_csv("time,load\n", "x", "x.csv"));
    EXPECT_FALSE(parse_load_csv("start,end,load\n", "x", "x.csv"));
}

TEST(FillGaps, UsesTheSameHourOfUpToFourPreviousDays) {
    auto s = days(6);
    s.mw[5 * 24 + 3] = std::nan("");
    s.mw[2 * 24 + 7] = 0.0;
    auto counts = fill_gaps(s);
    ASSERT_TRUE(counts);
    EXPECT_EQ(counts->missing, 1U);
    EXPECT_EQ(counts->zeros, 1U);
    // Day 5, 03:00: days 1–4 at 03:00 = 2003, 3003, 4003, 5003.
    EXPECT_DOUBLE_EQ(s.mw[5 * 24 + 3], (2003.0 + 3003.0 + 4003.0 + 5003.0) / 4);
    // Day 2, 07:00: only two previous days exist.
    EXPECT_DOUBLE_EQ(s.mw[2 * 24 + 7], (1007.0 + 2007.0) / 2);
}

TEST(FillGaps, RunsOfGapsFillFromAlreadyCleanedDays) {
    auto s = days(6);
    s.mw[4 * 24 + 1] = std::nan("");
    s.mw[5 * 24 + 1] = std::nan("");
    ASSERT_TRUE(fill_gaps(s));
    const double day4 = (1001.0 + 2001.0 + 3001.0 + 4001.0) / 4;
    EXPECT_DOUBLE_EQ(s.mw[4 * 24 + 1], day4);
    EXPECT_DOUBLE_EQ(s.mw[5 * 24 + 1], (2001.0 + 3001.0 + 4001.0 + day4) / 4);
}

TEST(FillGaps, TheFirstDayFillsFromTheNextDaysAndAnEmptyWeekFails) {
    auto s = days(3);
    s.mw[5] = 0.0;
    ASSERT_TRUE(fill_gaps(s));
    EXPECT_DOUBLE_EQ(s.mw[5], 2005.0); // the next day's reading
    auto empty = days(2);
    for (int d = 0; d < 2; ++d) {
        empty.mw[static_cast<std::size_t>(d * 24 + 9)] = 0.0;
    }
    auto r = fill_gaps(empty);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("no reading within 4 days"), std::string::npos);
}

TEST(Splits, TrainingYearsAre26304HoursAnd25968WindowsPerCountry) {
    SyntheticLoadOptions so;
    so.countries = 2;
    auto splits = make_splits(synthetic_load(so));
    ASSERT_TRUE(splits) << splits.error().message();
    EXPECT_EQ(splits->train.hours, 26304U);
    EXPECT_EQ(splits->valid.hours, 8760U);
    EXPECT_EQ(splits->test.hours, 8760U);
    EXPECT_EQ(splits->train.countries, (std::vector<std::string>{"s1", "s2"}));
    EXPECT_EQ(windows_per_country(splits->train.hours), 25968U);
    EXPECT_EQ(windows_per_country(splits->valid.hours), 8424U);
    EXPECT_EQ(windows_per_country(336), 0U);
    EXPECT_EQ(windows_per_country(337), 1U);
    // The generator's defects were filled: no zero or NaN is left.
    for (float v : splits->train.values) {
        ASSERT_TRUE(std::isfinite(v) && v > 0);
    }
    EXPECT_GT(splits->filled[0].missing + splits->filled[0].zeros, 0U);
}

TEST(Splits, FailWhenAYearIsNotCovered) {
    SyntheticLoadOptions so;
    so.countries = 1;
    so.to_year = 2018;
    auto splits = make_splits(synthetic_load(so));
    ASSERT_FALSE(splits);
    EXPECT_NE(splits.error().message().find("2019"), std::string::npos);
}

TEST(Normalise, MapsEachCountryToZeroOne) {
    LoadSet set{{"a", "b"}, 3, {10, 20, 30, 5, 5, 5}};
    const auto ranges = normalise(set);
    EXPECT_EQ(set.values, (std::vector<float>{0.0F, 0.5F, 1.0F, 0.0F, 0.0F, 0.0F}));
    EXPECT_EQ(ranges[0].min, 10.0F);
    EXPECT_EQ(ranges[0].max, 30.0F);
}

TEST(Mape, MatchesAHandComputedCase) {
    // |1 − 110/100| = 0.1, |1 − 90/100| = 0.1, |1 − 50/40| = 0.25: mean 0.15.
    const std::vector<float> forecast{110, 90, 50};
    const std::vector<float> reference{100, 100, 40};
    auto m = mape_percent(forecast, reference);
    ASSERT_TRUE(m);
    EXPECT_NEAR(*m, 15.0, 1e-5);
    EXPECT_FALSE(mape_percent(forecast, std::vector<float>{1, 2}));
    EXPECT_FALSE(mape_percent(forecast, std::vector<float>{1, 0, 2}));
}

TEST(SyntheticLoad, IsDeterministicAndShowsDailyAndWeeklyCycles) {
    SyntheticLoadOptions so;
    so.countries = 1;
    so.defects = false;
    const auto a = synthetic_load(so);
    EXPECT_EQ(a[0].mw, synthetic_load(so)[0].mw);
    so.seed = 2;
    EXPECT_NE(a[0].mw, synthetic_load(so)[0].mw);
    // Over the first 8 weeks: nights below afternoons, Sundays below Wednesdays.
    double night = 0, afternoon = 0, sunday = 0, wednesday = 0;
    const auto& v = a[0].mw;
    for (std::size_t d = 0; d < 56; ++d) {
        night += v[d * 24 + 3];
        afternoon += v[d * 24 + 15];
        double sum = 0;
        for (std::size_t h = 0; h < 24; ++h) {
            sum += v[d * 24 + h];
        }
        sunday += d % 7 == 3 ? sum : 0.0; // 2015-01-04 was a Sunday
        wednesday += d % 7 == 6 ? sum : 0.0;
    }
    EXPECT_LT(night, afternoon);
    EXPECT_LT(sunday, wednesday);
}

// Writes text gzip-compressed, as data/load is.
void write_gzip(const std::filesystem::path& file, const std::string& text) {
    gzFile out = gzopen(file.c_str(), "wb9");
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())),
              static_cast<int>(text.size()));
    ASSERT_EQ(gzclose(out), Z_OK);
}

TEST(LoadDir, ReadsGzipCompressedFilesAsThePlainOnes) {
    test::TempDir plain;
    test::TempDir packed;
    const auto text = csv_of({{at(0, 0), "100.5"}, {at(0, 1), "101.5"}, {at(0, 2), "99"}});
    plain.write("pt.csv", text);
    write_gzip(packed.path() / "pt.csv.gz", text);
    packed.write("notes.txt", "not a load file");
    auto a = read_load_dir(plain.path());
    auto b = read_load_dir(packed.path());
    ASSERT_TRUE(a) << a.error().message();
    ASSERT_TRUE(b) << b.error().message();
    ASSERT_EQ(b->size(), 1U);
    EXPECT_EQ(b->front().country, "pt");
    EXPECT_EQ(b->front().first_hour, a->front().first_hour);
    EXPECT_EQ(b->front().mw, a->front().mw);
}

TEST(LoadDir, RefusesACountryGivenTwiceAndABrokenGzipFile) {
    test::TempDir both;
    const auto text = csv_of({{at(0, 0), "100.5"}});
    both.write("fr.csv", text);
    write_gzip(both.path() / "fr.csv.gz", text);
    auto twice = read_load_dir(both.path());
    ASSERT_FALSE(twice);
    EXPECT_NE(twice.error().message().find("'fr' is given twice"), std::string::npos)
        << twice.error().message();

    test::TempDir broken;
    write_gzip(broken.path() / "fr.csv.gz", text);
    std::filesystem::resize_file(broken.path() / "fr.csv.gz",
                                 std::filesystem::file_size(broken.path() / "fr.csv.gz") - 12);
    auto cut = read_load_dir(broken.path());
    ASSERT_FALSE(cut);
    EXPECT_NE(cut.error().message().find("fr.csv.gz"), std::string::npos) << cut.error().message();
}

// The real data in the repository (data/load: ENTSO-E via Kaggle, gzip-compressed).
TEST(RealLoadData, EightCountriesCleanIntoEqualSplits) {
    const std::filesystem::path dir = JP_DATA_DIR "/load";
    auto series = read_load_dir(dir);
    ASSERT_TRUE(series) << series.error().message();
    ASSERT_EQ(series->size(), 8U);
    EXPECT_EQ(series->front().country, "ch");
    EXPECT_EQ(series->front().mw.size(), 48936U); // ch.csv: every hour, no gap
    auto splits = make_splits(std::move(*series));
    ASSERT_TRUE(splits) << splits.error().message();
    EXPECT_EQ(splits->train.countries.size(), 8U);
    EXPECT_EQ(splits->train.values.size(), 8U * 26304U);
    // fr.csv starts at 70929 MW, as the study's train.csv does.
    EXPECT_EQ(splits->train.country(3)[0], 70929.0F);
    // se.csv has zero readings; fr.csv has missing hours.
    EXPECT_GT(splits->filled[7].zeros, 0U);
    EXPECT_GT(splits->filled[3].missing, 0U);
}

} // namespace
} // namespace jp::workload
