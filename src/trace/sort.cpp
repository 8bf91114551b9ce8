// SPDX-License-Identifier: BSD-3-Clause
#include "trace/sort.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace jp::trace {

void sort_by_time(ChannelSamples& s) {
    if (std::ranges::is_sorted(s.points, {}, &TimedValue::t_ns)) {
        return;
    }
    std::vector<std::size_t> order(s.points.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::ranges::stable_sort(order, {}, [&](std::size_t i) { return s.points[i].t_ns; });
    ChannelSamples sorted;
    sorted.points.reserve(order.size());
    sorted.flags.reserve(order.size());
    for (const auto i : order) {
        sorted.points.push_back(s.points[i]);
        sorted.flags.push_back(s.flags[i]);
    }
    s = std::move(sorted);
}

} // namespace jp::trace
