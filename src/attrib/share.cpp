// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/share.hpp"

#include <algorithm>

namespace jp::attrib {

Share split(const Interval& in) noexcept {
    const double given = std::clamp(in.given, 0.0, 1.0);
    const double idle = std::clamp(in.idle_w * in.seconds, 0.0, std::max(in.energy_j, 0.0));
    const double dynamic = in.energy_j - idle;
    Share s;
    s.job_idle_j = idle * given;
    s.unallocated_j = idle - s.job_idle_j;
    if (in.used) {
        s.job_dynamic_j = dynamic * std::clamp(in.use, 0.0, 1.0);
        s.other_j = dynamic - s.job_dynamic_j;
    } else {
        const double mine = dynamic * given;
        s.job_dynamic_j = mine;
        s.unallocated_j += dynamic - mine;
    }
    return s;
}

} // namespace jp::attrib
