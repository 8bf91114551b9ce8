// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Whether two configurations differ beyond what is unsure about each: the runs'
// spread (the 95 % t-interval of each mean) and the sensors' bound on it
// (docs/uncertainty.md), and by how much at least: "uses 18–22 % less energy".
#include "report/summary.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace jp::report {

// Where a group's true mean can be: the sensors' bound on the mean (the mean
// itself where there is none) widened by the runs' 95 % t-interval.
struct MeanRange {
    double low = 0;
    double high = 0;
    bool runs_known = false;   // two runs or more: their spread is in the range
    bool sensor_known = false; // every run had a bound
};
[[nodiscard]] MeanRange mean_range(const Stat& s);

enum class Verdict { less, more, same };

struct Difference {
    double ratio_low = 0;  // the least the ratio x / baseline can be
    double ratio_high = 0; // the most (infinite when the baseline can be 0)
    Verdict verdict = Verdict::same;
    bool runs_known = false;   // both sides had repeats
    bool sensor_known = false; // both sides had a sensor bound
};
[[nodiscard]] Difference difference(const Stat& x, const Stat& baseline);

// "18–22 % less energy than cpu-node", "at least 5 % more energy than a",
// "no difference beyond the runs' spread and the sensors' bound (0.95–1.08 × a)",
// with what the verdict could not include.
[[nodiscard]] std::string difference_text(const Difference& d, std::string_view baseline);

[[nodiscard]] std::string_view to_string(Verdict v) noexcept;

} // namespace jp::report
