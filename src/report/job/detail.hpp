// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The steps of a merge, shared by its files (merge.cpp reads the nodes,
// across.cpp computes what spans them).
#include "report/job/job.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace jp::report::job {

// A trace's meta value, or fallback when it has none.
[[nodiscard]] std::string
meta_or(const trace::Reader& r, const std::string& key, const std::string& fallback = {});
// A trace's meta value as a whole integer; nullopt when absent or not one.
[[nodiscard]] std::optional<std::int64_t> meta_int(const trace::Reader& r, const std::string& key);

// The highest mean of the job's power over windows of the coarsest node's
// resolution (watts per bin of `step` over [0, span]).
void set_peak(JobResult& job,
              const std::vector<double>& watts,
              std::int64_t step,
              std::int64_t coarsest,
              std::int64_t span);

// Everything computed from the nodes' figures: totals, spreads, stragglers,
// parts and phases across nodes, status, partial, missing nodes, clocks.
void finish_job(JobResult& job);

// The step's share summed over the nodes (job.share), where any node has one.
void sum_shares(JobResult& job);

// Maps the node's GPU list (SLURM_STEP_GPUS, CUDA_VISIBLE_DEVICES: indices) to
// its GPU parts; leaves gpus_known false when it cannot.
void attribute_gpus(NodeResult& n);
// Whether a GPU part was the step's (every GPU is, when the list is not known).
[[nodiscard]] bool is_step_gpu(const NodeResult& n, const std::string& part);

[[nodiscard]] Spread spread_of(std::span<const double> values, std::span<const std::string> names);

} // namespace jp::report::job
