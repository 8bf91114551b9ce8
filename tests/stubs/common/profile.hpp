// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Shared by the stand-in vendor libraries (fake_nvml, fake_rocm_smi): a scripted power
// profile with its exact energy integral, the clock it runs on, and the fixture line
// splitter. Everything has internal linkage so that two stubs loaded into one process never
// bind to each other's symbols.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace jp::fake {
namespace {

// Power in watts over time in seconds: piecewise linear between points, constant before
// the first and after the last point, zero when there are none.
class Profile {
public:
    void add(double t, double watts) {
        m_points.emplace_back(t, watts);
        std::ranges::sort(m_points);
    }

    [[nodiscard]] double watts_at(double t) const {
        if (m_points.empty()) {
            return 0;
        }
        if (t <= m_points.front().first) {
            return m_points.front().second;
        }
        if (t >= m_points.back().first) {
            return m_points.back().second;
        }
        auto hi = std::ranges::upper_bound(m_points, std::pair{t, HUGE_VAL});
        auto lo = std::prev(hi);
        const double span = hi->first - lo->first;
        return lo->second + (hi->second - lo->second) * (t - lo->first) / span;
    }

    // Exact integral of watts_at over [0, t] in joules: the function is linear between
    // consecutive break points, so the trapezoid rule over them is exact.
    [[nodiscard]] double joules_until(double t) const {
        std::vector<double> cuts{0.0};
        for (const auto& [pt, w] : m_points) {
            if (pt > 0 && pt < t) {
                cuts.push_back(pt);
            }
        }
        cuts.push_back(std::max(t, 0.0));
        double joules = 0;
        for (std::size_t i = 1; i < cuts.size(); ++i) {
            joules += 0.5 * (watts_at(cuts[i - 1]) + watts_at(cuts[i])) * (cuts[i] - cuts[i - 1]);
        }
        return joules;
    }

private:
    std::vector<std::pair<double, double>> m_points; // (seconds, watts), sorted
};

// CLOCK_MONOTONIC in seconds, the clock of the profile (origin: the library's init call).
inline double mono_seconds() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// CLOCK_REALTIME in microseconds since 1970 (NVML's field timestamps).
inline long long wall_microseconds() {
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<long long>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
}

// One fixture line: positional words, then key=value options; `name=` takes the rest of
// the line, spaces included.
struct Line {
    std::vector<std::string> words;
    std::map<std::string, std::string> options;

    [[nodiscard]] std::string option(const std::string& key, std::string fallback) const {
        auto it = options.find(key);
        return it == options.end() ? fallback : it->second;
    }
    [[nodiscard]] bool flag(const std::string& key, bool fallback) const {
        auto it = options.find(key);
        return it == options.end() ? fallback : it->second == "yes";
    }
};

inline Line split_line(const std::string& text) {
    Line line;
    std::istringstream in{text};
    std::string word;
    while (in >> word) {
        const auto eq = word.find('=');
        if (eq == std::string::npos) {
            line.words.push_back(word);
            continue;
        }
        std::string value = word.substr(eq + 1);
        if (word.starts_with("name=")) {
            std::string rest;
            std::getline(in, rest);
            value += rest;
        }
        line.options[word.substr(0, eq)] = value;
    }
    return line;
}

} // namespace
} // namespace jp::fake
