// SPDX-License-Identifier: BSD-3-Clause
#include "report/phases.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace jp::report {

Phases
phases_of(std::span<const trace::Marker> markers, std::int64_t run_start, std::int64_t run_end) {
    Phases out;
    std::map<std::string, std::vector<std::int64_t>> open; // name -> begin times (a stack)
    const auto clamp = [&](std::int64_t t) { return std::clamp(t, run_start, run_end); };
    for (const auto& m : markers) {
        if (m.kind == "begin") {
            open[m.name].push_back(clamp(m.t_ns));
        } else if (m.kind == "end") {
            auto it = open.find(m.name);
            if (it == open.end() || it->second.empty()) {
                out.problems.push_back(fmt::format("end of '{}' without a begin", m.name));
                continue;
            }
            out.phases.push_back({m.name, it->second.back(), clamp(m.t_ns), false});
            it->second.pop_back();
        } else {
            out.points.push_back(m);
        }
    }
    for (auto& [name, begins] : open) {
        for (auto b : begins) {
            out.phases.push_back({name, b, run_end, true});
        }
    }
    std::ranges::stable_sort(out.phases, {}, &Phase::begin_ns);
    return out;
}

} // namespace jp::report
