// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The floor against timing (docs/security.md, "The floor against timing"): a
// floored caller's fresh exact reads are at least the floor apart. A start edge
// asked for sooner gets the caller's last exact reading again (it already holds
// it: nothing new is learnt, and the window still covers the job); an end edge
// asked for sooner is told when it may ask (too_soon), so the window ends after
// the job and is never shorter than the floor.
#include "daemon/history.hpp"

#include <cstdint>
#include <sys/types.h>
#include <unordered_map>
#include <utility>
#include <vector>

namespace jp::daemon {

struct ExactRead {
    std::int64_t t_ns = 0; // when the daemon read
    std::vector<std::pair<std::size_t, Reading>> values;
};

class ExactReadSpacing {
public:
    // uid's last fresh exact read when it is younger than floor_ns at now_ns.
    [[nodiscard]] const ExactRead*
    recent(uid_t uid, std::int64_t now_ns, std::int64_t floor_ns) const;
    // Keeps r as uid's last fresh exact read; forgets reads older than floor_ns.
    void remember(uid_t uid, ExactRead r, std::int64_t floor_ns);
    [[nodiscard]] std::size_t size() const noexcept { return m_last.size(); }

private:
    std::unordered_map<uid_t, ExactRead> m_last;
};

} // namespace jp::daemon
