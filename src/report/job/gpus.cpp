// SPDX-License-Identifier: BSD-3-Clause
// Which GPUs of a node were the step's: on a shared GPU node the trace holds
// every GPU, and only those Slurm gave the step are the job's (idle or not).
#include "report/job/detail.hpp"

#include <algorithm>
#include <charconv>

namespace jp::report::job {

void attribute_gpus(NodeResult& n) {
    std::vector<std::string> names;
    std::string_view list = n.gpus;
    while (!list.empty()) {
        const auto comma = list.find(',');
        const auto item = list.substr(0, comma);
        unsigned index = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), index);
        if (ec != std::errc{} || end != item.data() + item.size()) {
            return; // UUIDs or MIG names: not mapped to channels
        }
        names.push_back("gpu" + std::to_string(index));
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    }
    const auto is_gpu_part = [&](const std::string& name) {
        return std::ranges::any_of(
            n.run.parts, [&](const Item& p) { return p.domain == Domain::gpu && p.name == name; });
    };
    if (names.empty() || !std::ranges::all_of(names, is_gpu_part)) {
        return;
    }
    n.step_gpus = std::move(names);
    n.gpus_known = true;
}

bool is_step_gpu(const NodeResult& n, const std::string& part) {
    return !n.gpus_known || std::ranges::find(n.step_gpus, part) != n.step_gpus.end();
}

} // namespace jp::report::job
