// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/ledger.hpp"

#include "daemon/ledger_sweep.hpp"

#include <algorithm>
#include <iterator>
#include <sched.h>

namespace jp::daemon {
namespace {

using ledger_detail::Ranges;
using ledger_detail::round_up;
using ledger_detail::Sweep;

Ranges ranges_of(std::vector<int> cpus) {
    std::ranges::sort(cpus);
    cpus.erase(std::ranges::unique(cpus).begin(), cpus.end());
    Ranges out;
    for (const int c : cpus) {
        if (!out.empty() && out.back().second + 1 == c) {
            out.back().second = c;
        } else {
            out.emplace_back(c, c);
        }
    }
    return out;
}

// Whether two sets of CPUs share one (both ascending).
bool meet(const Ranges& a, const Ranges& b) {
    auto i = a.begin();
    auto j = b.begin();
    while (i != a.end() && j != b.end()) {
        if (i->second < j->first) {
            ++i;
        } else if (j->second < i->first) {
            ++j;
        } else {
            return true;
        }
    }
    return false;
}

} // namespace

void Ledger::open(const std::string& session,
                  const std::string& holder,
                  unsigned uid,
                  std::vector<int> cpus,
                  std::int64_t now_ns) {
    if (m_session_holder.contains(session)) {
        return;
    }
    m_session_holder.emplace(session, holder);
    auto [it, fresh] = m_holders.try_emplace(holder);
    if (fresh) { // the process's first session: the job begins
        it->second = Holding{ranges_of(std::move(cpus)), now_ns, INT64_MAX, 0, uid};
        m_opened.insert(now_ns);
    }
    ++it->second.sessions;
}

void Ledger::close(std::string_view session, std::int64_t now_ns) {
    const auto s = m_session_holder.find(session);
    if (s == m_session_holder.end()) {
        return;
    }
    const auto h = m_holders.find(s->second);
    m_session_holder.erase(s);
    if (h == m_holders.end() || --h->second.sessions > 0) {
        return; // the process holds another session: the job goes on
    }
    auto ended = std::move(h->second);
    m_holders.erase(h);
    m_opened.erase(m_opened.find(ended.opened_ns));
    ended.closed_ns = std::max(now_ns, ended.opened_ns);
    auto& mine = m_closed[ended.uid];
    m_closed_jobs += 1;
    m_closed_ranges += ended.cpus.size();
    mine.ranges += ended.cpus.size();
    const auto uid = ended.uid;
    mine.jobs.push_back(std::move(ended));
    prune(uid, now_ns);
}

std::size_t Ledger::closed_count(unsigned uid) const noexcept {
    const auto it = m_closed.find(uid);
    return it == m_closed.end() ? 0 : it->second.jobs.size();
}

void Ledger::prune(unsigned closer, std::int64_t now_ns) {
    settle(now_ns);
    // No open job began before these ended: nobody can ask about them. Decided on the grid,
    // so whether one is kept never tells when another job began to a finer time.
    const auto oldest = m_opened.empty() ? INT64_MAX : *m_opened.begin();
    const auto cell =
        oldest == INT64_MAX ? INT64_MAX : oldest - ((oldest % m_grid) + m_grid) % m_grid;
    for (auto it = m_closed.begin(); it != m_closed.end();) {
        auto& e = it->second;
        while (!e.jobs.empty() && round_up(e.jobs.front().closed_ns, m_grid) <= cell) {
            e.ranges -= e.jobs.front().cpus.size();
            m_closed_ranges -= e.jobs.front().cpus.size();
            m_closed_jobs -= 1;
            e.jobs.pop_front();
        }
        it = e.jobs.empty() ? m_closed.erase(it) : std::next(it);
    }
    while (m_closed_jobs > m_max_closed || m_closed_ranges > m_max_closed_ranges) {
        forget_oldest(m_closed_jobs <= m_max_closed, closer, now_ns);
    }
}

// The oldest ended job of the user who holds the most (jobs, or CPU ranges where those
// are over their bound; the closer where it is one of them, else the highest uid, so root
// last): remembered only as when it ended and which CPUs it held.
void Ledger::forget_oldest(bool by_ranges, unsigned closer, std::int64_t now_ns) {
    const auto weight = [&](const Ended& e) { return by_ranges ? e.ranges : e.jobs.size(); };
    auto most = m_closed.begin(); // never empty here: something is over a bound
    for (auto it = m_closed.begin(); it != m_closed.end(); ++it) {
        if (weight(it->second) >= weight(most->second)) {
            most = it;
        }
    }
    if (const auto c = m_closed.find(closer);
        c != m_closed.end() && weight(c->second) == weight(most->second)) {
        most = c;
    }
    auto& e = most->second;
    auto job = std::move(e.jobs.front());
    e.jobs.pop_front();
    e.ranges -= job.cpus.size();
    m_closed_ranges -= job.cpus.size();
    m_closed_jobs -= 1;
    if (e.jobs.empty()) {
        m_closed.erase(most);
    }
    m_recent_ranges += job.cpus.size();
    m_recent.push_back({now_ns, std::move(job)});
    // A flood within one grid cell (mostly the flooder's own jobs) settles early rather than
    // hold more than the bounds say.
    while (m_recent.size() > k_max_recent || m_recent_ranges > k_max_recent_ranges) {
        settle_front();
    }
}

void Ledger::set_grid(std::int64_t grid_ns, std::int64_t now_ns) {
    settle(now_ns);
    m_grid = grid_ns > 0 ? grid_ns : 1;
}

void Ledger::settle_front() {
    remember_forgotten(m_recent.front().job);
    m_recent_ranges -= m_recent.front().job.cpus.size();
    m_recent.pop_front();
}

// Forgettings whose grid point has passed: from now on only when they ended and which CPUs
// they held are kept.
void Ledger::settle(std::int64_t now_ns) {
    while (!m_recent.empty() && round_up(m_recent.front().at_ns, m_grid) <= now_ns) {
        settle_front();
    }
}

void Ledger::remember_forgotten(const Holding& job) {
    m_forgotten_until = std::max(m_forgotten_until, job.closed_ns);
    for (const auto& [first, last] : job.cpus) {
        if (first < 0) {
            continue; // no such CPU (the kernel's affinity has none)
        }
        if (static_cast<std::size_t>(last) >= m_forgotten_at.size()) {
            m_forgotten_at.resize(static_cast<std::size_t>(last) + 1, INT64_MIN);
        }
        for (auto c = static_cast<std::size_t>(first); c <= static_cast<std::size_t>(last); ++c) {
            m_forgotten_at[c] = std::max(m_forgotten_at[c], job.closed_ns);
        }
    }
}

std::optional<LedgerView>
Ledger::view(std::string_view session,
             std::int64_t from_ns,
             std::int64_t to_ns,
             std::int64_t now_ns,
             std::int64_t quantum_ns,
             const std::optional<std::vector<std::vector<int>>>& groups) const {
    const auto s = m_session_holder.find(session);
    const auto own = s == m_session_holder.end() ? m_holders.end() : m_holders.find(s->second);
    if (own == m_holders.end()) {
        return std::nullopt;
    }
    const auto& mine = own->second;
    const auto from = std::clamp(from_ns, mine.opened_ns, std::max(mine.opened_ns, now_ns));
    const auto to = std::clamp(to_ns, from, std::max(from, now_ns));
    // Others' times up to a multiple of the quantum on the daemon's clock itself: not
    // counted from the span's start, which the caller chooses (moving it by 1 ns at a time
    // would show where a rounding flips, and so the exact time).
    const auto q = std::max<std::int64_t>(1, quantum_ns);
    LedgerView v;
    for (const auto& [first, last] : mine.cpus) {
        for (int c = first; c <= last; ++c) {
            v.cpus.push_back(c);
        }
    }
    if (groups) {
        v.grouped = true;
        for (auto g : *groups) {
            std::ranges::sort(g);
            g.erase(std::ranges::unique(g).begin(), g.end());
            std::erase_if(g, [&](int c) { return !std::ranges::binary_search(v.cpus, c); });
            if (!g.empty()) { // a group of none of its CPUs: nothing to say (and no cost)
                v.groups.push_back(std::move(g));
            }
        }
    }
    // Forgotten jobs matter to the CPUs' counts only where they held one of this job's.
    auto forgotten_here = INT64_MIN;
    for (const auto& [first, last] : mine.cpus) {
        for (int c = std::max(first, 0);
             c <= last && static_cast<std::size_t>(c) < m_forgotten_at.size(); ++c) {
            forgotten_here = std::max(forgotten_here, m_forgotten_at[static_cast<std::size_t>(c)]);
        }
    }
    auto forgotten_anywhere = m_forgotten_until;
    Sweep sweep{v, from, to, q, m_grouped_page};
    // Those forgotten since a grid point: shown as kept until the next one has passed (for a
    // floored caller; root sees them forgotten at once).
    const auto published = std::min(q, m_grid);
    for (const auto& [at, job] : m_recent) {
        if (round_up(at, published) > now_ns) {
            sweep.consider(job.opened_ns, job.closed_ns, job.cpus);
            continue;
        }
        forgotten_anywhere = std::max(forgotten_anywhere, job.closed_ns);
        if (meet(job.cpus, mine.cpus)) {
            forgotten_here = std::max(forgotten_here, job.closed_ns);
        }
    }
    const auto whole_after = [&](std::int64_t forgotten) {
        return forgotten == INT64_MIN ? from : std::max(from, round_up(forgotten, q));
    };
    v.complete_from_ns = whole_after(forgotten_here);
    v.counts_complete_from_ns = whole_after(forgotten_anywhere);
    for (const auto& [holder, h] : m_holders) {
        if (&h != &mine) {
            sweep.consider(h.opened_ns, h.closed_ns, h.cpus);
        }
    }
    for (const auto& [uid, ended] : m_closed) {
        for (const auto& h : ended.jobs) {
            sweep.consider(h.opened_ns, h.closed_ns, h.cpus);
        }
    }
    if (!sweep.run()) {
        return std::nullopt;
    }
    return v;
}

std::int64_t CallBudget::take(unsigned uid, std::int64_t now_ns) {
    if (uid == 0) {
        return 0;
    }
    auto [it, fresh] = m_buckets.try_emplace(uid, Bucket{m_burst, now_ns});
    auto& b = it->second;
    b.tokens = std::min(m_burst, b.tokens + static_cast<double>(now_ns - b.t_ns) * 1e-9 * m_rate);
    b.t_ns = now_ns;
    if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
    }
    return static_cast<std::int64_t>((1 - b.tokens) / m_rate * 1e3) + 1;
}

std::vector<int> affinity_of(int pid) {
    if (pid <= 0) { // another PID namespace: not ours to read (0 is the caller itself)
        return {};
    }
    constexpr int k_cpus = 8192;
    cpu_set_t* set = CPU_ALLOC(k_cpus);
    if (set == nullptr) {
        return {};
    }
    const auto size = CPU_ALLOC_SIZE(k_cpus);
    CPU_ZERO_S(size, set);
    std::vector<int> out;
    if (::sched_getaffinity(pid, size, set) == 0) {
        for (int cpu = 0; cpu < k_cpus; ++cpu) {
            if (CPU_ISSET_S(static_cast<std::size_t>(cpu), size, set)) {
                out.push_back(cpu);
            }
        }
    }
    CPU_FREE(set);
    return out;
}

} // namespace jp::daemon
