// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A deterministic stand-in for the national load files, so energy-lstm runs on
// a fresh machine: hourly load with daily, weekly and yearly cycles, weather-like
// noise, and a few zero readings and missing hours for the cleaning to fill.
#include "data/load_data.hpp"

#include <cstdint>

namespace jp::workload {

struct SyntheticLoadOptions {
    int countries = 4; // named s1, s2, ...
    int from_year = 2015;
    int to_year = 2019;
    std::uint64_t seed = 1;
    bool defects = true; // a few zeros and missing hours per country
};

[[nodiscard]] std::vector<LoadSeries> synthetic_load(const SyntheticLoadOptions& options = {});

// splitmix64: the workloads' portable, seedable generator (the standard
// distributions are not reproducible across library versions).
class SplitMix {
public:
    explicit SplitMix(std::uint64_t seed) : m_state(seed) {}
    std::uint64_t next();
    double uniform();  // [0, 1)
    double gaussian(); // N(0, 1)

private:
    std::uint64_t m_state;
};

} // namespace jp::workload
