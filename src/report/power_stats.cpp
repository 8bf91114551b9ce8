// SPDX-License-Identifier: BSD-3-Clause
#include "report/power_stats.hpp"

#include <algorithm>
#include <utility>

namespace jp::report {
namespace {

// A peak over the runs: the highest of the runs' truths lies between the highest ends.
void highest(std::optional<PowerRange>& to, const std::optional<PowerRange>& from, bool first) {
    if (first) {
        to = from;
    } else if (to && from) {
        to->low_w = std::max(to->low_w, from->low_w);
        to->high_w = std::max(to->high_w, from->high_w);
        to->assumed |= from->assumed;
    } else {
        to.reset();
    }
}

// A figure averaged over the runs: its ends summed here, divided by the runs at the end.
void summed(std::optional<PowerRange>& to, const std::optional<PowerRange>& from, bool first) {
    if (first) {
        to = from;
    } else if (to && from) {
        to->low_w += from->low_w;
        to->high_w += from->high_w;
        to->assumed |= from->assumed;
    } else {
        to.reset();
    }
}

} // namespace

std::optional<PowerStats> power_stats(const std::vector<RunSummary>& runs) {
    std::optional<PowerStats> out;
    std::vector<double> mean;
    std::vector<double> p50;
    std::vector<double> p95;
    std::vector<double> p99;
    std::vector<double> above;
    std::optional<PowerRange> p50_bound;
    std::optional<PowerRange> p95_bound;
    std::optional<PowerRange> p99_bound;
    bool first = true;
    std::size_t runs_with_power = 0;
    for (const auto& run : runs) {
        if (!run.power) {
            continue;
        }
        const auto& d = *run.power;
        if (!out) {
            out.emplace();
            out->step_ns = run.power_step_ns;
            out->peak_w = d.peak_w;
            out->threshold_w = d.threshold_w;
        }
        for (auto [to, from] : {std::pair{&out->peak_bound, &d.peak_bound},
                                std::pair{&out->peak_1s_bound, &d.peak_1s_bound},
                                std::pair{&out->peak_60s_bound, &d.peak_60s_bound}}) {
            highest(*to, *from, first);
        }
        for (auto [to, from] :
             {std::pair{&p50_bound, &d.p50_bound}, std::pair{&p95_bound, &d.p95_bound},
              std::pair{&p99_bound, &d.p99_bound}}) {
            summed(*to, *from, first);
        }
        first = false;
        ++runs_with_power;
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
        // The mean of the runs' percentiles lies between the means of their ends.
        for (auto [to, from] :
             {std::pair{&out->p50_bound, &p50_bound}, std::pair{&out->p95_bound, &p95_bound},
              std::pair{&out->p99_bound, &p99_bound}}) {
            if (*from) {
                (*from)->low_w /= static_cast<double>(runs_with_power);
                (*from)->high_w /= static_cast<double>(runs_with_power);
            }
            *to = *from;
        }
        out->mean_w = stat_of(mean);
        out->p50_w = stat_of(p50);
        out->p95_w = stat_of(p95);
        out->p99_w = stat_of(p99);
        out->seconds_above = stat_of(above);
    }
    return out;
}

} // namespace jp::report
