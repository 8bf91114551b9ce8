// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Energy and runtime in units that fit their size, the same way in every text
// table and the HTML: a 10 ms job is "0.212 J" and "0.011 s", not "0.000 kJ"
// and "00:00:00"; a study's job "1764.600 kJ" and "00:30:30". JSON keeps
// joules and seconds at full precision.
#include "report/summary.hpp"

#include <string>
#include <string_view>

namespace jp::report {

struct EnergyUnit {
    std::string_view name = "kJ"; // for headers: "Consumption [kJ]"
    double per_joule = 1e-3;
    int digits = 3;
};

// The unit of a table whose largest energy is max_joules: J below 1 kJ (with
// about four significant digits), kJ below 10 MJ, MJ above.
[[nodiscard]] EnergyUnit energy_unit(double max_joules) noexcept;
// "12.345 ± 0.678" in the unit, no unit name; a figure the unit would show with too few
// significant digits (below three in a larger unit, below two in J with fewer decimals than
// it needs) in its own unit, named: "0.500 J" in a kJ column, not "0.001".
[[nodiscard]] std::string energy_pm(const Stat& s, const EnergyUnit& u);
// Half the sensors' bound on a mean (Stat::sensor) in the unit, no unit name: "0.020",
// "<0.001" where it rounds to nothing; "+9.100/−0.110" where the bound is far from centred
// on the figure (one side under half the other); "n/m" where it is wider than the figure
// (not measurable at the sensors' resolution), "-" where there is none. In the unit
// energy_pm gives the figure in, named where that is not the column's ("0.100 J").
[[nodiscard]] std::string sensor_pm(const Stat& s, const EnergyUnit& u);
// One figure with its own unit: "0.212 J", "1.765 kJ", "12.300 MJ".
[[nodiscard]] std::string energy_text(double joules);
// The same over repeats: "1.765 ± 0.011 kJ".
[[nodiscard]] std::string energy_text(const Stat& s);
// A range in the unit of its larger end, with the decimals that tell its ends apart:
// "466.612–466.613 MJ" (not "4.666e+08–4.666e+08 J"), "0.98–1.02 kJ".
[[nodiscard]] std::string energy_range_text(double low, double high);

// A number with `significant` digits and never an exponent, trailing zeros
// dropped: 0.456, 0.3, 0.0000023, 1234.5 (footprint figures a person reads).
[[nodiscard]] std::string plain_number(double v, int significant = 4);

// Runtime: seconds with decimals under a minute ("8.050 s", "0.011 s"), else hh:mm:ss.
[[nodiscard]] std::string runtime_text(double seconds);
// The same with "± std" over repeats.
[[nodiscard]] std::string runtime_pm(const Stat& s);

} // namespace jp::report
