// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The job's share of a shared node's energy (docs/attribution.md): each counted
// part and the rest of the node split, per interval of the job's recorded CPU
// use, into the job's idle share (by what it was given), its dynamic share (by
// what it used), unallocated and other processes; the node's is their sum, so
// job + unallocated + other = the node, part by part and in all.
#include "report/attribution_types.hpp"
#include "report/gpu_presence.hpp"
#include "report/share_bound.hpp"
#include "report/window.hpp"
#include "trace/types.hpp"

#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace jp::report {

// Idle power per channel name (and "rest") from a baseline run: each one's mean power.
[[nodiscard]] std::map<std::string, double> idle_of_baseline(const RunData& baseline);

struct Use;         // the job's and the node's CPU time by package, over the run
class LedgerShares; // report/attribution_ledger.hpp

// The split of a run prepared once (its facts, rules and CPU time), then taken over
// any windows of it: the whole run, a phase, the union of a phase's occurrences.
class Attributor {
public:
    // nullopt when the usage's facts cannot be read. data must outlive the Attributor.
    static std::optional<Attributor> make(const RunData& data,
                                          const trace::Usage& usage,
                                          const std::map<std::string, double>& baseline_idle);
    // The shares over windows (sorted, not overlapping; clamped to the run).
    [[nodiscard]] Attribution
    over(std::span<const std::pair<std::int64_t, std::int64_t>> windows) const;

private:
    static std::optional<Attributor> make_from(const RunData& data,
                                               const nlohmann::json& facts,
                                               const trace::Usage& usage,
                                               const std::map<std::string, double>& baseline_idle);
    // The readings a part is cut at: its channel's, the node meter's for the rest.
    [[nodiscard]] std::span<const TimedValue> readings_of(std::size_t part) const;
    // A part's intervals between cuts: its energy, the job's use between them.
    [[nodiscard]] std::vector<attrib::Interval>
    intervals_of(std::size_t part, std::span<const std::int64_t> cuts) const;
    // Adds the bound of part's share over one window's intervals (between cuts) to
    // share's (a counter's by its cut errors, a power field's by each interval's bound);
    // false when the part has no bound there.
    bool add_bound(JobShare& share,
                   std::size_t part,
                   std::span<const std::int64_t> cuts,
                   std::span<const attrib::Interval> intervals) const;
    struct Rule {
        int package = -1; // whose CPU time decides the use (-1: the node)
        double given = 0;
        bool gpu = false;
        int gpu_index = -1;   // gpuN's N
        bool by_cpus = false; // given by CPUs: other jobs may have held them too (m_ledger)
    };
    const RunData* m_data = nullptr;
    std::shared_ptr<const Use> m_use;
    std::shared_ptr<const GpuPresence> m_gpus;    // who else had the job's GPUs
    std::shared_ptr<const LedgerShares> m_ledger; // who else held the job's CPUs
    std::vector<std::size_t>
        m_channels; // the counted parts, then the rest (when m_rules is longer)
    std::vector<Rule> m_rules;
    CutErrors m_errors; // where each part's counter can be at a cut
    // Each part's channel with its limits (none: no bound), and the node's where it makes
    // the rest: found once a run, for the power fields' bounds interval by interval.
    std::vector<std::optional<Source>> m_sources;
    std::optional<Source> m_node_source;
    bool m_whole_node = false;
    Attribution m_template; // method, parts' names and idle power; no shares yet
};

// The attribution of the run whose data and usage these are; nullopt when the
// usage's facts cannot be read. baseline_idle: from idle_of_baseline (may be empty).
[[nodiscard]] std::optional<Attribution>
attribute(const RunData& data,
          const trace::Usage& usage,
          const std::map<std::string, double>& baseline_idle);

} // namespace jp::report
