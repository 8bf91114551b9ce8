// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Readings captured on real NVIDIA GPUs (tests/data/h100, tests/data/h200), as the
// report's tests replay them: a series of (time, value) rows in SI units, and what a
// reader polling it at a fixed period would have seen.
#include "core/integrate.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace jp::test {

constexpr std::int64_t k_capture_ms = 1'000'000;

// The second captures (docs/gpu-check.md "Second check"): both GPUs, four loads each.
constexpr std::array<const char*, 2> k_hopper_gpus{"h100", "h200"};
constexpr std::array<const char*, 4> k_hopper_loads{"square-37ms", "square-130ms", "pulse-101ms",
                                                    "pulse-103ms"};

// The rows of a capture in tests/data/<gpu>/, header skipped, each split at its commas.
inline std::vector<std::vector<std::string>> csv_rows(const std::string& gpu,
                                                      const std::string& file) {
    std::ifstream in{std::string{JP_TEST_SOURCE_DIR} + "/data/" + gpu + "/" + file};
    if (!in) {
        throw std::runtime_error("no capture " + gpu + "/" + file);
    }
    std::vector<std::vector<std::string>> rows;
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
        std::vector<std::string> fields;
        std::istringstream split{line};
        for (std::string f; std::getline(split, f, ',');) {
            fields.push_back(f);
        }
        rows.push_back(std::move(fields));
    }
    return rows;
}

// tests/data/h100/{idle,load}.csv (bench/gpu/nvml_capture.py: t_ns,energy_mj,...): the
// energy counter's rows, in joules.
inline std::vector<TimedValue> h100_energy(const std::string& file) {
    std::vector<TimedValue> rows;
    for (const auto& f : csv_rows("h100", file)) {
        rows.push_back({std::stoll(f.at(0)), std::stod(f.at(1)) * 1e-3});
    }
    return rows;
}

// tests/data/<gpu>/*.csv written by bench/gpu/field_capture.py
// (t_ns,t_end_ns,what,value,driver_us): one quantity's rows (energy_mj in joules, *_mw in
// watts), at the time the read began.
inline std::vector<TimedValue>
field_capture(const std::string& gpu, const std::string& file, std::string_view what) {
    std::vector<TimedValue> rows;
    for (const auto& f : csv_rows(gpu, file)) {
        if (f.at(2) == what) {
            rows.push_back({std::stoll(f.at(0)), std::stod(f.at(3)) * 1e-3});
        }
    }
    return rows;
}

// The median time between the rows where the value changed.
inline std::int64_t median_gap_between_changes(const std::vector<TimedValue>& rows) {
    std::vector<std::int64_t> changes;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        if (rows[i].value != rows[i - 1].value) {
            changes.push_back(rows[i].t_ns);
        }
    }
    std::vector<std::int64_t> d;
    for (std::size_t i = 1; i < changes.size(); ++i) {
        d.push_back(changes[i] - changes[i - 1]);
    }
    if (d.empty()) {
        return 0;
    }
    std::ranges::nth_element(d, d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2));
    return d[d.size() / 2];
}

// What a reader polling every period_ns from the first row to the last saw: the value of
// the last row at or before each read.
inline std::vector<TimedValue> polled(const std::vector<TimedValue>& rows, std::int64_t period_ns) {
    std::vector<TimedValue> out;
    std::size_t k = 0;
    for (std::int64_t t = rows.front().t_ns; t <= rows.back().t_ns; t += period_ns) {
        while (k + 1 < rows.size() && rows[k + 1].t_ns <= t) {
            ++k;
        }
        out.push_back({t, rows[k].value});
    }
    return out;
}

} // namespace jp::test
