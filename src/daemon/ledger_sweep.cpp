// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/ledger_sweep.hpp"

#include <algorithm>

namespace jp::daemon::ledger_detail {
namespace {

// Run-length pairs (holders, how many CPUs) of one segment's counts.
std::vector<std::pair<int, int>> runs_of(const std::vector<int>& held) {
    std::vector<std::pair<int, int>> runs;
    for (const int h : held) {
        if (!runs.empty() && runs.back().first == h) {
            ++runs.back().second;
        } else {
            runs.emplace_back(h, 1);
        }
    }
    return runs;
}

} // namespace

std::int64_t round_up(std::int64_t t, std::int64_t q) {
    if (t == INT64_MAX || t == INT64_MIN || q <= 1) {
        return t;
    }
    const auto k = t / q + (t % q > 0 ? 1 : 0);
    return k > INT64_MAX / q ? INT64_MAX : k * q;
}

Sweep::Sweep(LedgerView& v, std::int64_t from, std::int64_t to, std::int64_t q, std::size_t page)
    : m_v(v), m_held(v.cpus.size(), 1), m_from(from), m_to(to), m_q(q), m_page(page) {
    for (const auto& group : v.groups) {
        auto& at = m_group_at.emplace_back();
        for (const int cpu : group) {
            const auto it = std::ranges::lower_bound(v.cpus, cpu);
            at.push_back(static_cast<std::size_t>(it - v.cpus.begin()));
        }
    }
}

void Sweep::consider(std::int64_t opened, std::int64_t closed, const Ranges& cpus) {
    // Both rounded; whether it counts is decided on the rounded times too.
    const auto began = round_up(opened, m_q);
    const auto ended = round_up(closed, m_q);
    const bool meets =
        m_to > m_from ? began < m_to && ended > m_from : began <= m_from && ended > m_from;
    if (!meets) {
        return;
    }
    ++m_v.other_jobs;
    if (began == ended) {
        return; // within one quantum: it counts, but holds nothing at any time shown
    }
    if (began <= m_from) {
        apply(cpus, +1);
        ++m_active;
    } else {
        m_events.push_back({began, +1, &cpus});
    }
    if (ended < m_to) {
        m_events.push_back({ended, -1, &cpus});
    }
}

bool Sweep::run() {
    // Endings before beginnings at one time: jobs that only meet at a grid point are
    // not counted as there at once.
    std::ranges::sort(m_events, [](const Event& a, const Event& b) {
        return a.t_ns != b.t_ns ? a.t_ns < b.t_ns : a.delta < b.delta;
    });
    m_v.most_at_once = m_active;
    if (!emit(m_from)) {
        return false;
    }
    auto last = m_held;
    bool paged = false; // a grouped page is full: the rest of the span counts jobs only
    for (std::size_t i = 0; i < m_events.size();) {
        const auto t = m_events[i].t_ns;
        for (; i < m_events.size() && m_events[i].t_ns == t; ++i) {
            apply(*m_events[i].cpus, m_events[i].delta);
            m_active = m_events[i].delta > 0 ? m_active + 1 : m_active - 1;
            m_v.most_at_once = std::max(m_v.most_at_once, m_active);
        }
        if (m_held != last && !paged) {
            last = m_held;
            if (!emit(t)) {
                if (!m_v.more_from_ns) {
                    return false;
                }
                paged = true;
            }
        }
    }
    return true;
}

void Sweep::apply(const Ranges& cpus, int delta) {
    for (const auto& [first, last] : cpus) {
        for (auto it = std::ranges::lower_bound(m_v.cpus, first);
             it != m_v.cpus.end() && *it <= last; ++it) {
            m_held[static_cast<std::size_t>(it - m_v.cpus.begin())] += delta;
        }
    }
}

bool Sweep::emit(std::int64_t t) {
    if (m_v.grouped) {
        return emit_sums(t);
    }
    auto runs = runs_of(m_held);
    m_pairs += runs.size();
    m_v.segments.emplace_back(t, std::move(runs));
    return m_pairs <= Ledger::k_max_pairs &&
           m_v.segments.size() * std::max<std::size_t>(1, m_v.cpus.size()) <= Ledger::k_max_cells;
}

// Each group's share: 1 / holders of each of its CPUs, added in the CPUs' order (the same
// counts give the same sum). A change elsewhere, or one that leaves every sum as it was,
// is no new segment.
bool Sweep::emit_sums(std::int64_t t) {
    std::vector<double> sums;
    sums.reserve(m_group_at.size());
    for (const auto& at : m_group_at) {
        double s = 0;
        for (const auto i : at) {
            s += 1.0 / m_held[i];
        }
        sums.push_back(s);
    }
    if (!m_v.sums.empty() && m_v.sums.back().second == sums) {
        return true;
    }
    // A page holds one segment at least (groups are at most the session's CPUs, 65,536).
    if (!m_v.sums.empty() && (m_v.sums.size() + 1) * (m_group_at.size() + 1) > m_page) {
        m_v.more_from_ns = t; // the next page begins with this segment
        return false;
    }
    m_v.sums.emplace_back(t, std::move(sums));
    return true;
}

} // namespace jp::daemon::ledger_detail
