// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a caller may see: full resolution (root, listed groups), floored
// readings (everyone else, unless the site denies them), and a per-user budget
// of exact reads (a token bucket) so that job edges stay exact while a tight
// loop of reads cannot rebuild a fine-grained power trace.
#include "daemon/settings.hpp"
#include "sys/socket.hpp"

#include <cstdint>
#include <unordered_map>

namespace jp::daemon {

enum class Grant : std::uint8_t { full, floor, denied };

[[nodiscard]] std::string_view to_string(Grant g) noexcept;

// uid 0 and members of a full-resolution group (primary or supplementary) get
// full; others floor, or denied when the rules say so.
[[nodiscard]] Grant grant_for(const AccessRules& rules, const sys::PeerCredentials& who);

class EdgeBudget {
public:
    struct Decision {
        bool allowed = false;
        std::int64_t retry_after_ms = 0; // when refused: until the next read is allowed
    };
    // Takes one exact read for uid at now_ns. Full-resolution callers are not
    // limited; burst 0 means no limit.
    Decision take(uid_t uid, Grant grant, std::int64_t now_ns, const AccessRules& rules);
    // Reads uid could make right now.
    [[nodiscard]] int available(uid_t uid, std::int64_t now_ns, const AccessRules& rules) const;

private:
    struct Bucket {
        double tokens = 0;
        std::int64_t t_ns = 0;
    };
    [[nodiscard]] static double
    refilled(const Bucket& b, std::int64_t now_ns, const AccessRules& rules) noexcept;
    std::unordered_map<uid_t, Bucket> m_buckets;
};

} // namespace jp::daemon
