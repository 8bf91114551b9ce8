// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The share of a package's CPUs a job was given when other jobs held some of the same CPUs
// (jouleprofd's ledger, kept in the run's facts: docs/attribution.md, "Several jobs on one
// node"): each CPU's idle power split evenly between the jobs that held it at the time, so
// that jobs given the same CPUs are not each charged all of their idle power.
#include "attrib/allocation.hpp"
#include "daemon_client/ledger_reply.hpp"
#include "report/attribution_types.hpp"

#include <cstdint>
#include <expected>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace jp::report {

class LedgerShares {
public:
    // nullopt where the ledger says nothing new: no other job held any of the job's CPUs
    // at any time, or the allocation was counted rather than bound (cpus_counted); an error
    // where a grouped ledger's groups are not the job's CPUs by package (a damaged trace).
    static std::expected<std::optional<LedgerShares>, std::string>
    make(const daemon::LedgerReply& ledger, const attrib::Allocation& alloc);
    // The job's share of package's CPUs (-1: the node's) over [a, b], time-weighted; before
    // the ledger's first segment, as that one.
    [[nodiscard]] double given(int package, std::int64_t a, std::int64_t b) const;

private:
    std::vector<std::int64_t> m_t;                   // each segment's start
    std::map<int, std::vector<double>> m_by_package; // per segment; -1: the node
    std::set<int> m_online;                          // the node's packages
};

// Who else held the job's CPUs, from a run's facts ("ledger", where jouleprofd ran): the
// shares (null where nobody else held any), the count of other jobs, the method and a note
// in out; a damaged ledger, one the daemon could not give, or one that forgot jobs after the
// run's start t0 is said in a note.
[[nodiscard]] std::shared_ptr<const LedgerShares> ledger_shares(const nlohmann::json& facts,
                                                                const attrib::Allocation& alloc,
                                                                std::int64_t t0,
                                                                Attribution& out);

// "jouleprofd's ledger: 2 other jobs on the node during the run (at most 1 at once); ...":
// the notes for a run's ledger that began at t0: the count ("at least" where the daemon had
// forgotten jobs that ended after t0; none where there were no other jobs), and where it
// had forgotten jobs on the job's CPUs, that those may be counted as the job's until then
// (one note where both forgot up to the same time).
[[nodiscard]] std::vector<std::string> ledger_notes(const daemon::LedgerReply& ledger,
                                                    std::int64_t t0);

} // namespace jp::report
