// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How the ledger's view is made (daemon/ledger.hpp): the counts of one session's CPUs as
// other jobs begin and end through a span, per CPU or summed over groups of them.
#include "daemon/ledger.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace jp::daemon::ledger_detail {

using Ranges = std::vector<std::pair<int, int>>; // [first, last] CPUs, ascending

// t up to a multiple of q (q > 1) on the clock itself; "never" stays never.
[[nodiscard]] std::int64_t round_up(std::int64_t t, std::int64_t q);

class Sweep {
public:
    // v holds the session's CPUs, and, for a grouped view, its groups (the session's own
    // CPUs of each, ascending), whose pages hold at most `page` numbers.
    Sweep(LedgerView& v, std::int64_t from, std::int64_t to, std::int64_t q, std::size_t page);

    // Another job, held over [opened, closed): counted and swept where it meets the span.
    void consider(std::int64_t opened, std::int64_t closed, const Ranges& cpus);

    // The segments; false where the answer would pass the ledger's bounds.
    bool run();

private:
    struct Event {
        std::int64_t t_ns = 0;
        int delta = 0; // +1 began, -1 ended
        const Ranges* cpus = nullptr;
    };
    void apply(const Ranges& cpus, int delta);
    bool emit(std::int64_t t);
    bool emit_sums(std::int64_t t);

    LedgerView& m_v;
    std::vector<int> m_held;
    std::vector<std::vector<std::size_t>> m_group_at; // per group: indices into m_v.cpus
    std::vector<Event> m_events;
    std::size_t m_active = 0;
    std::size_t m_pairs = 0;
    std::int64_t m_from;
    std::int64_t m_to;
    std::int64_t m_q;
    std::size_t m_page;
};

} // namespace jp::daemon::ledger_detail
