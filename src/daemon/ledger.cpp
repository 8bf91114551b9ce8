// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/ledger.hpp"

#include <algorithm>
#include <sched.h>

namespace jp::daemon {
namespace {

struct Event {
    std::int64_t t_ns = 0;
    int delta = 0; // +1 opened, -1 closed
    const std::vector<int>* cpus = nullptr;
};

} // namespace

void Ledger::open(const std::string& session, std::vector<int> cpus, std::int64_t now_ns) {
    std::ranges::sort(cpus);
    cpus.erase(std::ranges::unique(cpus).begin(), cpus.end());
    if (const auto it = m_open.find(session); it != m_open.end()) {
        m_opened.erase(m_opened.find(it->second.opened_ns));
    }
    m_open[session] = Holding{std::move(cpus), now_ns, INT64_MAX};
    m_opened.insert(now_ns);
}

void Ledger::close(std::string_view session, std::int64_t now_ns) {
    const auto it = m_open.find(session);
    if (it == m_open.end()) {
        return;
    }
    auto h = std::move(it->second);
    m_open.erase(it);
    m_opened.erase(m_opened.find(h.opened_ns));
    h.closed_ns = std::max(now_ns, h.opened_ns);
    m_closed.push_back(std::move(h));
    prune();
}

void Ledger::prune() {
    // No open session began before these closed: none can ask about them any more.
    const std::int64_t oldest = m_opened.empty() ? INT64_MAX : *m_opened.begin();
    while (!m_closed.empty() && m_closed.front().closed_ns <= oldest) {
        m_closed.pop_front();
    }
    while (m_closed.size() > k_max_closed) {
        m_forgotten_until = std::max(m_forgotten_until, m_closed.front().closed_ns);
        m_closed.pop_front();
    }
}

std::optional<LedgerView> Ledger::view(std::string_view session,
                                       std::int64_t from_ns,
                                       std::int64_t to_ns,
                                       std::int64_t now_ns,
                                       std::int64_t quantum_ns) const {
    const auto own = m_open.find(session);
    if (own == m_open.end()) {
        return std::nullopt;
    }
    const auto& mine = own->second;
    const auto from = std::clamp(from_ns, mine.opened_ns, std::max(mine.opened_ns, now_ns));
    const auto to = std::clamp(to_ns, from, std::max(from, now_ns));
    // Others' times up to a multiple of the quantum on the daemon's clock itself: not
    // counted from the span's start, which the caller chooses (moving it by 1 ns at a time
    // would show where a rounding flips, and so the exact time).
    const auto q = std::max<std::int64_t>(1, quantum_ns);
    const auto rounded = [q](std::int64_t t) {
        if (t == INT64_MAX || q == 1) {
            return t;
        }
        const auto k = t / q + (t % q > 0 ? 1 : 0);
        return k > INT64_MAX / q ? INT64_MAX : k * q;
    };
    LedgerView v;
    v.cpus = mine.cpus;
    v.complete_from_ns = std::max(from, m_forgotten_until);
    std::vector<int> held(mine.cpus.size(), 1);
    const auto apply = [&](const std::vector<int>& cpus, int delta) {
        // Both sorted: each of our CPUs the other holds too.
        auto a = v.cpus.begin();
        auto b = cpus.begin();
        while (a != v.cpus.end() && b != cpus.end()) {
            if (*a < *b) {
                ++a;
            } else if (*b < *a) {
                ++b;
            } else {
                held[static_cast<std::size_t>(a - v.cpus.begin())] += delta;
                ++a;
                ++b;
            }
        }
    };
    std::vector<Event> events;
    std::size_t active = 0;
    const auto consider = [&](const Holding& h) {
        // Held over [opened, closed), both rounded: does that meet [from, to] (a point: from
        // itself)? Whether another job counts is decided on the rounded times too.
        const auto opened = rounded(h.opened_ns);
        const auto closed = rounded(h.closed_ns);
        const bool meets =
            to > from ? opened < to && closed > from : opened <= from && closed > from;
        if (!meets) {
            return;
        }
        ++v.other_jobs;
        if (opened <= from) {
            apply(h.cpus, +1);
            ++active;
        } else {
            events.push_back({opened, +1, &h.cpus});
        }
        if (closed < to) {
            events.push_back({closed, -1, &h.cpus});
        }
    };
    for (const auto& [id, h] : m_open) {
        if (id != session) {
            consider(h);
        }
    }
    for (const auto& h : m_closed) {
        consider(h);
    }
    // Openings before closings at one time: a session that ended as another began is not
    // counted as gone before it went.
    std::ranges::sort(events, [](const Event& a, const Event& b) {
        return a.t_ns != b.t_ns ? a.t_ns < b.t_ns : a.delta > b.delta;
    });
    v.most_at_once = active;
    v.segments.emplace_back(from, held);
    for (std::size_t i = 0; i < events.size();) {
        const auto t = events[i].t_ns;
        for (; i < events.size() && events[i].t_ns == t; ++i) {
            apply(*events[i].cpus, events[i].delta);
            active = events[i].delta > 0 ? active + 1 : active - 1;
            v.most_at_once = std::max(v.most_at_once, active);
        }
        if (held != v.segments.back().second) {
            if (v.segments.back().first == t) {
                v.segments.back().second = held;
            } else {
                if (v.segments.size() >= k_max_segments) {
                    return std::nullopt;
                }
                v.segments.emplace_back(t, held);
            }
        }
    }
    return v;
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
