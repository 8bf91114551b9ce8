// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// jouleprofd's ledger view (docs/daemon-protocol.md, `ledger`): which of the session's CPUs
// other jobs held too, as that changed, and how many other jobs there were. Read strictly
// both from the daemon's reply (the socket a user names may be anyone's) and from a trace's
// facts, where jouleprof keeps it with the run (docs/attribution.md).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <utility>
#include <vector>

namespace jp::daemon {

struct LedgerReply {
    std::vector<int> cpus; // the session's own, ascending (per CPU; empty where grouped)
    // Grouped (asked with groups): of each group asked, the session's own CPUs in it.
    bool grouped = false;
    std::vector<std::vector<int>> groups;
    struct Segment {
        std::int64_t t_ns = 0;
        std::vector<std::pair<int, int>> runs; // (holders, how many of `cpus`) in their order
        // Grouped: per group, the sum over its CPUs of 1 / how many held each.
        std::vector<double> sums;
    };
    std::vector<Segment> segments; // by time; the first at the span's start
    std::size_t other_jobs = 0;
    std::size_t most_at_once = 0;
    std::int64_t complete_from_ns = 0;        // the CPUs' counts whole from here
    std::int64_t counts_complete_from_ns = 0; // other_jobs and most_at_once whole from here

    // Per CPU of `cpus`, how many held it in segment k.
    [[nodiscard]] std::vector<int> held(std::size_t k) const;
};

inline constexpr std::size_t k_max_ledger_segments = 100'000;
inline constexpr std::size_t k_max_ledger_pairs = 200'000;
inline constexpr std::size_t k_max_ledger_cells = 10'000'000; // segments x CPUs (or groups)
inline constexpr std::size_t k_max_ledger_grouped_segments = 1'000'000;
inline constexpr std::size_t k_max_ledger_groups = 1024;

// The groups a job's share needs of the ledger: its CPUs on each package.
using LedgerGroups = std::vector<std::vector<int>>;

// A reply (or facts) with every time less shift_ns (the daemon's clock to ours, ours to a
// trace's); nullopt where anything is missing, of the wrong type or out of range: CPUs
// 0..65535 ascending, times within ±2^61 ascending, counts from 1, runs covering `cpus`,
// segments x CPUs at most k_max_ledger_cells; grouped: at most k_max_ledger_groups groups of
// such CPUs, none in two, and per segment a sum per group between its size / (most_at_once
// + 1) and its size, segments x groups at most k_max_ledger_cells.
[[nodiscard]] std::optional<LedgerReply> parse_ledger(const nlohmann::json& j,
                                                      std::int64_t shift_ns);
[[nodiscard]] nlohmann::json ledger_json(const LedgerReply& r);

} // namespace jp::daemon
