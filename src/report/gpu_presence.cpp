// SPDX-License-Identifier: BSD-3-Clause
#include "report/gpu_presence.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace jp::report {

GpuPresence::GpuPresence(std::span<const trace::GpuUseRecord> records) {
    for (const auto& r : records) {
        m_by_gpu[r.gpu].push_back(r);
    }
    for (auto& [gpu, list] : m_by_gpu) {
        std::ranges::stable_sort(list, {}, &trace::GpuUseRecord::t_ns);
    }
}

std::optional<GpuPresence::Seen> GpuPresence::over(int gpu, std::int64_t a, std::int64_t b) const {
    const auto it = m_by_gpu.find(gpu);
    if (it == m_by_gpu.end() || it->second.empty()) {
        return std::nullopt;
    }
    const auto& list = it->second;
    // The listings around [a, b]: the last at or before a (the first, before any), every
    // one inside, and the first at or after b (else the last): a process a listing shows
    // may have come at any time since the one before, or gone at any time after it.
    auto first = std::ranges::upper_bound(list, a, {}, &trace::GpuUseRecord::t_ns);
    if (first != list.begin()) {
        --first;
    }
    auto last = std::ranges::lower_bound(list, b, {}, &trace::GpuUseRecord::t_ns);
    if (last != list.end()) {
        ++last;
    }
    Seen most;
    most.bracketed = first->t_ns <= a && last != list.begin() && std::prev(last)->t_ns >= b;
    for (auto r = first; r != last; ++r) {
        most.job = std::max(most.job, r->job);
        most.other = std::max(most.other, r->other);
        most.unknown = std::max(most.unknown, r->unknown);
    }
    return most;
}

void GpuPresence::apply(attrib::Interval& in, int gpu, std::int64_t a, std::int64_t b) const {
    const auto seen = over(gpu, a, b);
    if (!seen || (seen->other == 0 && seen->unknown == 0)) {
        return; // the job's alone (or nobody's): as the allocation says
    }
    const double all = seen->job + seen->other + seen->unknown;
    in.used = true;
    if (seen->job == 0 && seen->unknown == 0) {
        // Others' processes alone: theirs, where a listing before and one after say so (the
        // job is taken not to start and end its GPU work between two of them); before the
        // first listing or after the last, the job's may have come and gone unseen.
        in.use = 0;
        in.use_unknown = !seen->bracketed;
        return;
    }
    // Processes /proc does not show and none of anyone else's: most likely the job's own
    // seen from another PID namespace, so still the job's, with the bound of not knowing.
    in.use = seen->job == 0 && seen->other == 0 ? 1.0 : seen->job / all;
    in.use_unknown = true;
}

std::vector<std::string>
GpuPresence::notes(std::span<const int> gpus, std::int64_t t0, std::int64_t t1) const {
    std::vector<std::string> out;
    for (const int gpu : gpus) {
        const auto it = m_by_gpu.find(gpu);
        if (it == m_by_gpu.end()) {
            continue;
        }
        int others = 0;
        int unknown = 0;
        int job = 0;
        for (const auto& r : it->second) {
            if (r.t_ns >= t0 && r.t_ns <= t1) {
                others = std::max(others, r.other);
                unknown = std::max(unknown, r.unknown);
                job = std::max(job, r.job);
            }
        }
        if (others == 0 && unknown == 0) {
            continue;
        }
        const auto count = [](int n, std::string_view what) {
            return fmt::format("{} {}{}", n, what, n == 1 ? "" : "es");
        };
        const std::string theirs = others > 0 ? count(others, "other process") : "";
        const std::string hidden =
            unknown > 0 ? count(unknown, "process") + " /proc does not show" : "";
        const std::string who =
            fmt::format("{}{}{}", theirs, theirs.empty() || hidden.empty() ? "" : " and ", hidden);
        const std::string mine = job == 0
                                     ? "and none of the job's"
                                     : fmt::format("beside the job's {}", count(job, "process"));
        std::string what;
        if (job == 0 && unknown == 0) {
            what = "its power above idle went to other processes while listings showed them "
                   "alone (before the first listing and after the last, the job's share may be "
                   "anywhere from none of it to all of it)";
        } else if (job == 0 && others == 0) {
            what = "most likely the job's own, seen from another PID namespace: its power above "
                   "idle stays the job's, though it may be anywhere from none of it to all of it";
        } else {
            what = "NVML cannot say who used a shared GPU, so its power above idle is split by "
                   "the number of processes, though the job's share may be anywhere from none "
                   "of it to all of it";
        }
        out.push_back(fmt::format("gpu{} was shared: {} had it {} (the most at once, listed "
                                  "once a second); {}",
                                  gpu, who, mine, what));
    }
    return out;
}

} // namespace jp::report
