// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The node's ledger of who holds which CPUs (docs/attribution.md, "Several jobs on one
// node"): every session is a job that holds the CPUs its client may run on (the client's
// affinity, which the kernel reports for the pid SO_PEERCRED vouched for, so no client can
// claim CPUs it was not given), from its opening to its end. A session asks for its own
// view over a span of its life: for each of its CPUs, how many sessions held it, as that
// changed; how many other jobs there were and the most at once. It never learns whose they
// were (docs/security.md).
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace jp::daemon {

struct LedgerView {
    std::vector<int> cpus; // the session's own
    // From each time on (ascending; the first at the span's start): per CPU of `cpus`,
    // how many sessions held it, this one included.
    std::vector<std::pair<std::int64_t, std::vector<int>>> segments;
    std::size_t other_jobs = 0;   // other sessions open at some time in the span
    std::size_t most_at_once = 0; // the most of them open at one time
    // Sessions that closed before this were forgotten (the ledger's bound): the view is
    // complete from here on (the span's start when nothing was forgotten).
    std::int64_t complete_from_ns = 0;
};

class Ledger {
public:
    // Closed sessions kept while an open one may still ask about them: at most this many.
    static constexpr std::size_t k_max_closed = 65536;
    // Changes one answer may list; a span with more is refused (ask for shorter spans).
    static constexpr std::size_t k_max_segments = 100'000;

    void open(const std::string& session, std::vector<int> cpus, std::int64_t now_ns);
    void close(std::string_view session, std::int64_t now_ns);
    // The session's view over [from_ns, to_ns] (clamped to its life so far); times of
    // others' openings and closings rounded up to a multiple of quantum_ns (a floored
    // caller's floor: none finer than what it may see of the node). nullopt: no such
    // session open, or more changes than k_max_segments.
    [[nodiscard]] std::optional<LedgerView> view(std::string_view session,
                                                 std::int64_t from_ns,
                                                 std::int64_t to_ns,
                                                 std::int64_t now_ns,
                                                 std::int64_t quantum_ns) const;
    [[nodiscard]] std::size_t open_count() const noexcept { return m_open.size(); }
    [[nodiscard]] std::size_t closed_count() const noexcept { return m_closed.size(); }

private:
    struct Holding {
        std::vector<int> cpus; // sorted
        std::int64_t opened_ns = 0;
        std::int64_t closed_ns = INT64_MAX;
    };
    void prune();

    std::map<std::string, Holding, std::less<>> m_open;
    std::multiset<std::int64_t> m_opened; // the open sessions' openings: the oldest first
    std::deque<Holding> m_closed;         // by closing time
    std::int64_t m_forgotten_until = INT64_MIN;
};

// The CPUs process pid may run on (sched_getaffinity), sorted; empty when it cannot be read.
[[nodiscard]] std::vector<int> affinity_of(int pid);

} // namespace jp::daemon
