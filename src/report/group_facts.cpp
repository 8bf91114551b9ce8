// SPDX-License-Identifier: BSD-3-Clause
// What a group of runs is, as the views that list groups say it: its name among others, how
// certain its node figure is, whether its node was shared.
#include "report/format.hpp"

#include <algorithm>
#include <filesystem>

namespace jp::report {

std::string group_name(const RepeatSummary& g, const std::vector<RepeatSummary>& all) {
    const auto same = std::ranges::count(all, g.label, &RepeatSummary::label);
    if (same < 2 || g.traces.empty()) {
        return g.label;
    }
    // The trace's stem; where another group of that label has the same, the directory's name
    // before it (d1/t), and the path where that is the same too.
    const auto name = [](const RepeatSummary& r, int how) {
        const std::filesystem::path p = r.traces.empty() ? "" : r.traces.front();
        return how == 0   ? p.stem().string()
               : how == 1 ? (p.parent_path().filename() / p.stem()).string()
                          : p.string();
    };
    for (int how = 0; how < 2; ++how) {
        if (std::ranges::none_of(all, [&](const RepeatSummary& o) {
                return &o != &g && o.label == g.label && name(o, how) == name(g, how);
            })) {
            return name(g, how) + ":" + g.label;
        }
    }
    return name(g, 2) + ":" + g.label;
}

Provenance least_certain(const RepeatSummary& g) {
    auto p = Provenance::measured;
    for (const auto& r : g.runs) {
        p = static_cast<int>(r.node.provenance) > static_cast<int>(p) ? r.node.provenance : p;
    }
    return p;
}

bool any_lower_bound(const RepeatSummary& g) {
    return std::ranges::any_of(g.runs, [](const RunSummary& r) { return r.node.lower_bound; });
}

bool shared_node(const RepeatSummary& r) {
    return std::ranges::all_of(r.runs,
                               [](const RunSummary& run) { return run.attribution.has_value(); }) &&
           !std::ranges::all_of(r.runs,
                                [](const RunSummary& run) { return run.attribution->exclusive; });
}

} // namespace jp::report
