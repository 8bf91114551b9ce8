// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/access.hpp"

#include <algorithm>
#include <cmath>

namespace jp::daemon {

std::string_view to_string(Grant g) noexcept {
    switch (g) {
    case Grant::full:
        return "full";
    case Grant::floor:
        return "floor";
    case Grant::denied:
        return "denied";
    }
    return "denied";
}

Grant grant_for(const AccessRules& rules, const sys::PeerCredentials& who) {
    if (who.uid == 0) {
        return Grant::full;
    }
    const auto listed = [&](gid_t g) {
        return std::ranges::find(rules.full_resolution_gids, g) != rules.full_resolution_gids.end();
    };
    if (listed(who.gid) || std::ranges::any_of(who.groups, listed)) {
        return Grant::full;
    }
    return rules.others_allowed ? Grant::floor : Grant::denied;
}

double
EdgeBudget::refilled(const Bucket& b, std::int64_t now_ns, const AccessRules& rules) noexcept {
    const double minutes = static_cast<double>(std::max<std::int64_t>(0, now_ns - b.t_ns)) / 60e9;
    return std::min(static_cast<double>(rules.edge_reads_burst),
                    b.tokens + minutes * rules.edge_reads_per_minute);
}

EdgeBudget::Decision
EdgeBudget::take(uid_t uid, Grant grant, std::int64_t now_ns, const AccessRules& rules) {
    if (grant == Grant::full || rules.edge_reads_burst == 0) {
        return {true, 0};
    }
    auto [it, fresh] =
        m_buckets.try_emplace(uid, Bucket{static_cast<double>(rules.edge_reads_burst), now_ns});
    auto& b = it->second;
    b.tokens = fresh ? b.tokens : refilled(b, now_ns, rules);
    b.t_ns = now_ns;
    if (b.tokens >= 1.0) {
        b.tokens -= 1.0;
        return {true, 0};
    }
    if (rules.edge_reads_per_minute <= 0) {
        return {false, -1}; // never again
    }
    const double wait_ms = (1.0 - b.tokens) / rules.edge_reads_per_minute * 60e3;
    return {false, static_cast<std::int64_t>(std::ceil(wait_ms))};
}

int EdgeBudget::available(uid_t uid, std::int64_t now_ns, const AccessRules& rules) const {
    const auto it = m_buckets.find(uid);
    if (it == m_buckets.end()) {
        return rules.edge_reads_burst;
    }
    return static_cast<int>(std::floor(refilled(it->second, now_ns, rules)));
}

} // namespace jp::daemon
