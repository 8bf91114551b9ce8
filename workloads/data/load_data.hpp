// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The energy-lstm workload's data: hourly national electricity load, cleaned,
// split by year, normalised per country and cut into 168 h → 168 h windows the
// way the study prepared it (docs/workloads.md lists every step and its source).
#include "core/error.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace jp::workload {

inline constexpr std::size_t k_history = 168; // hours in
inline constexpr std::size_t k_horizon = 168; // hours out

// One country's load on a complete hourly grid; NaN marks an hour the file
// did not have. Hours are counted from 1970-01-01 00:00 UTC.
struct LoadSeries {
    std::string country;
    std::int64_t first_hour = 0;
    std::vector<double> mw;
};

// Parses `start,end,<load>` CSV text (the third column's name is free: the
// Swedish file calls it MW_load). Start times are `YYYY-MM-DD HH:MM:SS±HH:MM`.
// Sub-hourly rows are averaged into their hour; rows out of order or
// duplicated are errors naming the line.
[[nodiscard]] Result<LoadSeries>
parse_load_csv(std::string_view text, std::string country, std::string_view where);

// Reads one file, plain or gzip-compressed; the country is the name before .csv
// (fr.csv, fr.csv.gz → fr).
[[nodiscard]] Result<LoadSeries> read_load_csv(const std::filesystem::path& path);

struct FillCounts {
    std::size_t missing = 0; // hours absent from the file
    std::size_t zeros = 0;   // zero or NaN readings
};

// The study's cleaning: a missing, zero or NaN hour takes the mean of the
// same hour on up to 4 previous days (already cleaned, so runs of gaps fill
// forward). An hour with no previous day (the series' first day) takes the
// next days' instead. Fails when a whole week around an hour is empty.
[[nodiscard]] Result<FillCounts> fill_gaps(LoadSeries& series);

// Hours since the epoch of YYYY-01-01 00:00 UTC.
[[nodiscard]] std::int64_t hour_of_year_start(int year);

// The hours of [from_year, to_year] (whole years, UTC); fails unless the
// series covers them all.
[[nodiscard]] Result<std::vector<double>>
years(const LoadSeries& series, int from_year, int to_year);

// Countries × hours, row-major, all countries the same length.
struct LoadSet {
    std::vector<std::string> countries;
    std::size_t hours = 0;
    std::vector<float> values;

    [[nodiscard]] std::span<const float> country(std::size_t c) const {
        return {values.data() + c * hours, hours};
    }
    [[nodiscard]] std::span<float> country(std::size_t c) {
        return {values.data() + c * hours, hours};
    }
};

struct Range {
    float min = 0;
    float max = 0;
};

// Per country min-max to [0, 1] over the whole set (a flat country maps to 0).
std::vector<Range> normalise(LoadSet& set);

// Sliding windows with an hourly stride: T − 168 − 168 per country, as the
// study's loader counts them (26,304 training hours → 25,968).
[[nodiscard]] constexpr std::size_t windows_per_country(std::size_t hours) {
    return hours > k_history + k_horizon ? hours - k_history - k_horizon : 0;
}

// The study's MAPE: 100 · mean |1 − forecast / reference| over every value.
// Sizes must match and no reference may be 0.
[[nodiscard]] Result<double> mape_percent(std::span<const float> forecast,
                                          std::span<const float> reference);

// The train/valid/test splits of one set of country files.
struct LoadSplits {
    LoadSet train;                  // 2015–2017
    LoadSet valid;                  // 2018
    LoadSet test;                   // 2019
    std::vector<FillCounts> filled; // per country
};

struct SplitYears {
    int train_from = 2015;
    int train_to = 2017;
    int valid = 2018;
    int test = 2019;
};

// Cleans each series and cuts the splits (not normalised).
[[nodiscard]] Result<LoadSplits> make_splits(std::vector<LoadSeries> series,
                                             const SplitYears& years = {});

// Every <country>.csv or <country>.csv.gz in a directory, in country order; a
// country given both ways is an error.
[[nodiscard]] Result<std::vector<LoadSeries>> read_load_dir(const std::filesystem::path& dir);

} // namespace jp::workload
