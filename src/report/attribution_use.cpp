// SPDX-License-Identifier: BSD-3-Clause
#include "report/attribution_use.hpp"

#include <algorithm>
#include <cmath>

namespace jp::report {

// The readings by time, checked: at most k_packages packages, each one the facts name
// (package 0 when they name none); finite, non-negative, never decreasing. nullopt otherwise.
std::optional<Use> use_of(const trace::Usage& usage, const attrib::Allocation& alloc) {
    constexpr std::size_t k_packages = 256; // more sockets than any node has
    std::vector<int> allowed{0};
    for (const auto& [cpu, pkg] : alloc.package_of) {
        if (std::ranges::find(allowed, pkg) == allowed.end()) {
            allowed.push_back(pkg);
        }
    }
    std::vector<int> packages;
    for (const auto& r : usage.records) {
        if (std::ranges::find(allowed, r.package) == allowed.end() || !std::isfinite(r.job_s) ||
            !std::isfinite(r.busy_s) || r.job_s < 0 || r.busy_s < 0) {
            return std::nullopt;
        }
        if (std::ranges::find(packages, r.package) == packages.end()) {
            packages.push_back(r.package);
            if (packages.size() > k_packages) {
                return std::nullopt;
            }
        }
    }
    Use u;
    for (std::size_t i = 0; i < usage.records.size();) {
        const auto t = usage.records[i].t_ns;
        u.t.push_back(t);
        for (const int p : packages) {
            auto& v = u.by_package[p];
            v.emplace_back(v.empty() ? std::pair{0.0, 0.0} : v.back());
        }
        for (; i < usage.records.size() && usage.records[i].t_ns == t; ++i) {
            auto& v = u.by_package[usage.records[i].package];
            const std::pair next{usage.records[i].job_s, usage.records[i].busy_s};
            if (v.size() >= 2 &&
                (next.first < v[v.size() - 2].first || next.second < v[v.size() - 2].second)) {
                return std::nullopt; // cumulative readings that go back
            }
            v.back() = next;
        }
    }
    // The job's time and the node's come from different clocks (a group's scheduler time
    // or the process tree's 10 ms ticks against the node's): where the job's runs ahead of
    // the node's busy time in an interval, the excess is carried into the next ones rather
    // than cut, so the job's whole CPU time is used up to what the node was busy.
    for (auto& [package, v] : u.by_package) {
        double carry = 0;
        double job_prev = v.empty() ? 0 : v.front().first;
        for (std::size_t k = 1; k < v.size(); ++k) {
            const double dj = v[k].first - job_prev + carry;
            const double db = std::max(v[k].second - v[k - 1].second, 0.0);
            const double take = std::clamp(dj, 0.0, db);
            job_prev = v[k].first;
            carry = dj - take;
            v[k].first = v[k - 1].first + take;
        }
    }
    return u;
}

} // namespace jp::report
