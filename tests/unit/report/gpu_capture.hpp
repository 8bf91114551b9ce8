// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Readings captured on real NVIDIA GPUs (tests/data/h100, tests/data/h200), as the
// report's tests replay them: a series of (time, value) rows in SI units, and what a
// reader polling it at a fixed period would have seen.
#include "core/integrate.hpp"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace jp::test {

constexpr std::int64_t k_capture_ms = 1'000'000;

// tests/data/h100/*.csv (bench/gpu/nvml_capture.py: t_ns,energy_mj,...): the energy
// counter's rows, in joules.
inline std::vector<TimedValue> h100_energy(const std::string& file) {
    std::ifstream in{std::string{JP_TEST_SOURCE_DIR} + "/data/h100/" + file};
    if (!in) {
        throw std::runtime_error("no capture " + file);
    }
    std::vector<TimedValue> rows;
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
        std::istringstream fields{line};
        std::string t;
        std::string mj;
        std::getline(fields, t, ',');
        std::getline(fields, mj, ',');
        rows.push_back({std::stoll(t), std::stod(mj) * 1e-3});
    }
    return rows;
}

// tests/data/<gpu>/*.csv written by bench/gpu/field_capture.py
// (t_ns,t_end_ns,what,value,driver_us): one quantity's rows (energy_mj in joules, *_mw in
// watts), at the time the read began.
inline std::vector<TimedValue>
field_capture(const std::string& gpu, const std::string& file, std::string_view what) {
    std::ifstream in{std::string{JP_TEST_SOURCE_DIR} + "/data/" + gpu + "/" + file};
    if (!in) {
        throw std::runtime_error("no capture " + file);
    }
    std::vector<TimedValue> rows;
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
        std::istringstream fields{line};
        std::string t;
        std::string end;
        std::string name;
        std::string value;
        std::getline(fields, t, ',');
        std::getline(fields, end, ',');
        std::getline(fields, name, ',');
        std::getline(fields, value, ',');
        if (name == what) {
            rows.push_back({std::stoll(t), std::stod(value) * 1e-3});
        }
    }
    return rows;
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
