// SPDX-License-Identifier: BSD-3-Clause
#include "report/power_stats.hpp"

#include <algorithm>
#include <utility>

namespace jp::report {

std::optional<PowerStats> power_stats(const std::vector<RunSummary>& runs) {
    std::optional<PowerStats> out;
    std::vector<double> mean;
    std::vector<double> p50;
    std::vector<double> p95;
    std::vector<double> p99;
    std::vector<double> above;
    for (const auto& run : runs) {
        if (!run.power) {
            continue;
        }
        const auto& d = *run.power;
        if (!out) {
            out.emplace();
            out->step_ns = run.power_step_ns;
            out->peak_w = d.peak_w;
            out->peak_bound = d.peak_bound;
            out->threshold_w = d.threshold_w;
        }
        if (out->peak_bound && d.peak_bound) { // the highest of the runs' truths
            out->peak_bound->low_w = std::max(out->peak_bound->low_w, d.peak_bound->low_w);
            out->peak_bound->high_w = std::max(out->peak_bound->high_w, d.peak_bound->high_w);
            out->peak_bound->max_assumed =
                out->peak_bound->max_assumed || d.peak_bound->max_assumed;
            out->peak_bound->profile_assumed =
                out->peak_bound->profile_assumed || d.peak_bound->profile_assumed;
        } else {
            out->peak_bound.reset();
        }
        out->step_ns = std::min(out->step_ns, run.power_step_ns);
        out->peak_w = std::max(out->peak_w, d.peak_w);
        for (auto [to, from] : {std::pair{&out->peak_1s_w, &d.peak_1s_w},
                                std::pair{&out->peak_60s_w, &d.peak_60s_w}}) {
            if (*from) {
                *to = std::max(to->value_or(**from), **from);
            }
        }
        mean.push_back(d.mean_w);
        p50.push_back(d.p50_w);
        p95.push_back(d.p95_w);
        p99.push_back(d.p99_w);
        above.push_back(d.seconds_above);
    }
    if (out) {
        out->mean_w = stat_of(mean);
        out->p50_w = stat_of(p50);
        out->p95_w = stat_of(p95);
        out->p99_w = stat_of(p99);
        out->seconds_above = stat_of(above);
    }
    return out;
}

} // namespace jp::report
