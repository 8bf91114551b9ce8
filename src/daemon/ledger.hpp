// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The node's ledger of who holds which CPUs (docs/attribution.md, "Several jobs on one
// node"): every client process with a session is a job that holds the CPUs it may run on
// (its affinity, which the kernel reports for the pid SO_PEERCRED vouched for, so no client
// can claim CPUs it was not given), from its first session's opening to its last one's end;
// a process with several sessions is one job. A session asks for its own view over a span
// of its life: for each of its CPUs, how many jobs held it, as that changed; how many other
// jobs there were and the most at once. It never learns whose they were, and a floored
// caller nothing finer than its floor (docs/security.md).
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jp::daemon {

struct LedgerView {
    std::vector<int> cpus; // the session's own
    // From each time on (ascending; the first at the span's start): for each CPU of `cpus`
    // in order, how many jobs held it (this one included), run-length coded:
    // (holders, how many CPUs).
    std::vector<std::pair<std::int64_t, std::vector<std::pair<int, int>>>> segments;
    // Asked for groups of CPUs (one per package, say) instead: of each group, the session's
    // own CPUs in it (ascending), and from each time on (as above) per group the sum over
    // them of 1 / how many jobs held each (this one included), where `segments` stays
    // empty. What a job's share needs, in a size that does not grow with how finely other
    // jobs' CPUs interleave with its own (one holding every other CPU made a pair per CPU).
    bool grouped = false;
    std::vector<std::vector<int>> groups; // those holding none of the session's CPUs left out
    std::vector<std::pair<std::int64_t, std::vector<double>>> sums;
    // A grouped view comes in pages of at most Ledger::k_grouped_page numbers (segments x
    // (groups + 1)): where this one ends before the span does, the time to ask from next
    // (other_jobs and most_at_once are those of the span asked).
    std::optional<std::int64_t> more_from_ns;
    std::size_t other_jobs = 0;   // other jobs holding CPUs at some time in the span
    std::size_t most_at_once = 0; // the most of them at one time
    // Jobs that held one of `cpus` and ended before this were forgotten (the ledger's
    // bounds): the counts of `segments` are whole from here on (the span's start when none).
    std::int64_t complete_from_ns = 0;
    // The same for any job on the node: other_jobs and most_at_once count every job from
    // here on, and only the jobs kept before.
    std::int64_t counts_complete_from_ns = 0;
};

class Ledger {
public:
    // Ended jobs kept while an open session may still ask about them: at most this many,
    // holding at most this many CPU ranges in all (a hostile user's churn stays bounded).
    // Beyond either bound the user who holds the most (the one closing where it ties) loses
    // its oldest: one user's churn forgets its own jobs, and no other user's while that
    // user holds fewer than the churner.
    static constexpr std::size_t k_max_closed = 65536;
    static constexpr std::size_t k_max_closed_ranges = std::size_t{1} << 20;
    // One answer: at most this many run-length pairs, and segments x CPUs (what a reader
    // expands) at most k_max_cells; a longer span is refused (ask for shorter ones).
    static constexpr std::size_t k_max_pairs = 200'000;
    static constexpr std::size_t k_max_cells = 10'000'000;
    // A grouped view: at most this many groups asked, and numbers (segments x (groups + 1))
    // in one page, so that no answer nears what a connection may hold unsent (4 MiB).
    static constexpr std::size_t k_max_groups = 1024;
    static constexpr std::size_t k_grouped_page = 100'000;

    explicit Ledger(std::size_t max_closed = k_max_closed,
                    std::size_t max_closed_ranges = k_max_closed_ranges,
                    std::size_t grouped_page = k_grouped_page)
        : m_max_closed(max_closed), m_max_closed_ranges(max_closed_ranges),
          m_grouped_page(grouped_page) {}

    // The grid (the floor, ns) on which ended jobs are forgotten: whether one is kept never
    // depends on when another job began to a finer time than that.
    // A new grid (a reloaded floor) from now_ns: forgettings already shown on the old one
    // stay shown, never kept again until a later point of the new one.
    void set_grid(std::int64_t grid_ns, std::int64_t now_ns);
    // A session of the client process `holder` ("pid:start time") of user `uid`, which may
    // run on `cpus`.
    void open(const std::string& session,
              const std::string& holder,
              unsigned uid,
              std::vector<int> cpus,
              std::int64_t now_ns);
    void close(std::string_view session, std::int64_t now_ns);
    // The session's view over [from_ns, to_ns] (clamped to its life so far); others' times
    // rounded up to a multiple of quantum_ns on this clock (a floored caller's floor).
    // With `groups` (at most k_max_groups, CPUs in any order; those that are not the
    // session's left out, and groups left with none), the grouped view, in pages. nullopt:
    // no such session open, or an answer beyond the bounds above.
    [[nodiscard]] std::optional<LedgerView>
    view(std::string_view session,
         std::int64_t from_ns,
         std::int64_t to_ns,
         std::int64_t now_ns,
         std::int64_t quantum_ns,
         const std::optional<std::vector<std::vector<int>>>& groups = std::nullopt) const;
    [[nodiscard]] std::size_t open_count() const noexcept { return m_holders.size(); }
    [[nodiscard]] std::size_t closed_count() const noexcept { return m_closed_jobs; }
    [[nodiscard]] std::size_t closed_count(unsigned uid) const noexcept;

private:
    using Ranges = std::vector<std::pair<int, int>>; // [first, last] CPUs, ascending
    struct Holding {
        Ranges cpus;
        std::int64_t opened_ns = 0;
        std::int64_t closed_ns = INT64_MAX;
        std::size_t sessions = 0; // open sessions of its process
        unsigned uid = 0;
    };
    struct Ended { // one user's ended jobs, by their end
        std::deque<Holding> jobs;
        std::size_t ranges = 0;
    };
    struct Forgotten {
        std::int64_t at_ns = 0; // when the bound made the ledger forget it
        Holding job;
    };
    void prune(unsigned closer, std::int64_t now_ns);
    void forget_oldest(bool by_ranges, unsigned closer, std::int64_t now_ns);
    void settle(std::int64_t now_ns);
    void settle_front();
    void remember_forgotten(const Holding& job);

    std::map<std::string, std::string, std::less<>> m_session_holder;
    std::map<std::string, Holding, std::less<>> m_holders; // open jobs, by process
    std::multiset<std::int64_t> m_opened;                  // their openings: the oldest first
    std::map<unsigned, Ended> m_closed;                    // ended jobs, by user
    std::size_t m_closed_jobs = 0;
    std::size_t m_closed_ranges = 0;
    // Jobs forgotten past the bounds: the last of them to end, and per CPU the last of those
    // that held it (INT64_MIN: none), so a view of other CPUs stays whole.
    std::int64_t m_forgotten_until = INT64_MIN;
    std::vector<std::int64_t> m_forgotten_at;
    // Forgotten since the last grid point: still shown whole to a floored view until it
    // passes, so that when another user's close pushed the ledger over its bound is never
    // seen finer than the floor.
    std::deque<Forgotten> m_recent;
    std::size_t m_recent_ranges = 0;
    static constexpr std::size_t k_max_recent = 4096;
    static constexpr std::size_t k_max_recent_ranges = std::size_t{1} << 16;
    std::size_t m_max_closed;
    std::size_t m_max_closed_ranges;
    std::size_t m_grouped_page;
    std::int64_t m_grid = 1'000'000'000;
};

// Calls one uid may make (the ledger's view walks every kept job): `burst` at once, refilled
// at `per_second`; root is not limited.
class CallBudget {
public:
    // The ledger's views: each walks every kept job.
    static constexpr double k_view_burst = 16;
    static constexpr double k_views_per_second = 4;
    // New sessions: each becomes a job the node's ledger keeps (up to Ledger's bound for all
    // users together), so one user opening and closing them as fast as it can would push
    // everyone else's jobs out of it and make every full-resolution view long.
    static constexpr double k_open_burst = 64;
    static constexpr double k_opens_per_second = 4;

    CallBudget(double burst, double per_second) : m_burst(burst), m_rate(per_second) {}
    // 0 when the call may go ahead (one taken), else the ms until the next one may.
    std::int64_t take(unsigned uid, std::int64_t now_ns);
    [[nodiscard]] double burst() const noexcept { return m_burst; }
    [[nodiscard]] double per_second() const noexcept { return m_rate; }

private:
    struct Bucket {
        double tokens = 0;
        std::int64_t t_ns = 0;
    };
    double m_burst;
    double m_rate;
    std::map<unsigned, Bucket> m_buckets;
};

// The CPUs process pid may run on (sched_getaffinity), sorted; empty when it cannot be read.
[[nodiscard]] std::vector<int> affinity_of(int pid);

} // namespace jp::daemon
