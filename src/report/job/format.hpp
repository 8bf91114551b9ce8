// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A job's merged result as text, JSON and a self-contained HTML page, and
// Slurm's own figure for the same step beside it.
#include "core/duration.hpp"
#include "report/job/job.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace jp::report::job {

// The job's table: totals, each node, spread and stragglers, parts and phases
// across nodes, Slurm's figure, what is missing. Names are not escaped here
// (the terminal's caller does).
[[nodiscard]] std::string format_text(const JobResult& job);
// " (sensors: 12.20–12.40 kJ, edge staleness)", " (not measurable at the sensors'
// resolution: …)", or nothing without a bound: what follows a merged energy figure.
[[nodiscard]] std::string bound_note(const std::optional<Bound>& bound, double energy_j);
[[nodiscard]] nlohmann::json to_json(const JobResult& job);
// How the step's share splits, as the text and the HTML results say it: "idle 1.2 kJ by
// allocation + dynamic 0.3 kJ by use[ + … of nodes counted whole]; unallocated …, other
// processes …".
[[nodiscard]] std::string share_split_text(const ShareAcross& share);
// Who else ran on the step's nodes, from their jouleprofd ledgers: "other jobs on 2 of 3
// nodes (a: 3, b: 1; at most 2 at once on one node)[; no ledger on c: unknown there]", or
// nothing where no node had a ledger or none had other jobs.
[[nodiscard]] std::string other_jobs_text(const ShareAcross& share);

struct HtmlJobOptions {
    int plot_width_px = 900;
    int max_node_profiles = 64; // nodes drawn one by one; the rest only in the sum
    bool force = false;         // an existing output may be replaced
};
// Writes the job's page (never over a trace; an existing file only with force).
[[nodiscard]] Result<void>
write_html(const JobResult& job, const std::filesystem::path& out, const HtmlJobOptions& options);

// Slurm's ConsumedEnergyRaw for the job's step from `sacct` (the step's energy
// as Slurm's acct_gather_energy plugin measured it). nullopt when the traces
// are not from Slurm, sacct is missing or disabled, or Slurm has no energy
// for the step (no plugin: 0). `tries` reads, a second apart, while the step
// has no record yet: at a step's end the accounting record may come a moment later.
[[nodiscard]] std::optional<SlurmEnergy> slurm_energy(const JobResult& job, int tries = 1);

} // namespace jp::report::job
