// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/spacing.hpp"

namespace jp::daemon {

const ExactRead*
ExactReadSpacing::recent(uid_t uid, std::int64_t now_ns, std::int64_t floor_ns) const {
    const auto it = m_last.find(uid);
    if (it == m_last.end() || now_ns - it->second.t_ns >= floor_ns) {
        return nullptr;
    }
    return &it->second;
}

void ExactReadSpacing::remember(uid_t uid, ExactRead r, std::int64_t floor_ns) {
    const auto now = r.t_ns;
    // Only reads younger than the floor matter: the table holds one per user who
    // read within the last floor, never one per user ever seen.
    std::erase_if(m_last, [&](const auto& kv) { return now - kv.second.t_ns >= floor_ns; });
    m_last[uid] = std::move(r);
}

} // namespace jp::daemon
