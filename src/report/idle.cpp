// SPDX-License-Identifier: BSD-3-Clause
#include "report/idle.hpp"

namespace jp::report {

std::vector<IdleDevice> idle_devices(const Figures& run, double max_util_percent) {
    std::vector<IdleDevice> out;
    for (const auto& p : run.parts) {
        if (p.domain != Domain::gpu || !p.mean_util || *p.mean_util > max_util_percent) {
            continue;
        }
        IdleDevice d;
        d.name = p.name;
        d.energy_j = p.energy_j;
        d.share = run.node.energy_j > 0 ? p.energy_j / run.node.energy_j : 0;
        d.mean_util = *p.mean_util;
        d.provenance = p.provenance;
        out.push_back(std::move(d));
    }
    return out;
}

} // namespace jp::report
