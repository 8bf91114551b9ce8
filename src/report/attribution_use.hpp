// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The job's and the node's CPU time as a run's usage record holds them, checked and
// made cumulative per package, for the split (report/attribution.hpp).
#include "attrib/allocation.hpp"
#include "trace/types.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace jp::report {

// Cumulative (job, busy) CPU seconds of a package (or the node) at each usage time.
struct Use {
    std::vector<std::int64_t> t;
    std::map<int, std::vector<std::pair<double, double>>> by_package;
    // Linear between readings; held before the first and after the last.
    [[nodiscard]] std::pair<double, double> value(int package, std::int64_t time) const {
        const auto it = std::ranges::lower_bound(t, time);
        if (it == t.end()) {
            return at(package, t.size() - 1);
        }
        const auto k = static_cast<std::size_t>(it - t.begin());
        if (*it == time || k == 0) {
            return at(package, k);
        }
        const auto lo = at(package, k - 1);
        const auto hi = at(package, k);
        const double f =
            static_cast<double>(time - t[k - 1]) / static_cast<double>(t[k] - t[k - 1]);
        return {lo.first + f * (hi.first - lo.first), lo.second + f * (hi.second - lo.second)};
    }
    [[nodiscard]] std::pair<double, double> at(int package, std::size_t k) const {
        if (package >= 0) {
            if (const auto it = by_package.find(package); it != by_package.end()) {
                return it->second[k];
            }
        }
        std::pair<double, double> sum{0, 0};
        for (const auto& [p, v] : by_package) {
            sum.first += v[k].first;
            sum.second += v[k].second;
        }
        return sum;
    }
};

// The readings by time, checked: at most k_packages packages, each one the facts name
// (package 0 when they name none); finite, non-negative, never decreasing. nullopt otherwise.
[[nodiscard]] std::optional<Use> use_of(const trace::Usage& usage, const attrib::Allocation& alloc);

} // namespace jp::report
