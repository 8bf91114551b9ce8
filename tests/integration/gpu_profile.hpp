// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A stand-in GPU's power profile as the tests write it into the stand-in NVML's fixture
// (tests/stubs/fake_nvml), and its exact integral: the truth a GPU figure is checked against
// once the stand-in's clock is set against the trace's (JP_FAKE_ORIGIN_FILE).
#include <fmt/format.h>
#include <string>
#include <utility>
#include <vector>

namespace jp::test {

// A piecewise-linear power profile, as the stand-in plays it (t in s since nvmlInit).
struct Profile {
    std::vector<std::pair<double, double>> points; // (t s, W)

    // Steps of `watts[i]` for `seconds[i]` each, repeated until `until` s.
    static Profile steps(const std::vector<std::pair<double, double>>& pattern, double until) {
        Profile p;
        for (double t = 0; t < until;) {
            for (const auto& [seconds, watts] : pattern) {
                p.points.emplace_back(t, watts);
                p.points.emplace_back(t + seconds - 1e-6, watts);
                t += seconds;
            }
        }
        return p;
    }
    [[nodiscard]] double watts_at(double t) const {
        if (t <= points.front().first) {
            return points.front().second;
        }
        for (std::size_t i = 1; i < points.size(); ++i) {
            const auto& [t1, w1] = points[i];
            if (t <= t1) {
                const auto& [t0, w0] = points[i - 1];
                return w0 + (w1 - w0) * (t - t0) / (t1 - t0);
            }
        }
        return points.back().second;
    }
    // The exact integral over [a, b] s, piece by piece.
    [[nodiscard]] double joules(double a, double b) const {
        std::vector<double> cuts{a};
        for (const auto& pt : points) {
            if (pt.first > a && pt.first < b) {
                cuts.push_back(pt.first);
            }
        }
        cuts.push_back(b);
        double sum = 0;
        for (std::size_t i = 1; i < cuts.size(); ++i) {
            sum += 0.5 * (watts_at(cuts[i - 1]) + watts_at(cuts[i])) * (cuts[i] - cuts[i - 1]);
        }
        return sum;
    }
    [[nodiscard]] std::string fixture(const std::string& gpu_line) const {
        std::string out = gpu_line + "\n";
        for (const auto& [t, w] : points) {
            out += fmt::format("power 0 {:.6f} {:.3f}\n", t, w);
        }
        return out;
    }
};

} // namespace jp::test
