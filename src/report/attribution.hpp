// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The job's share of a shared node's energy (docs/attribution.md): each counted
// part and the rest of the node split, per interval of the job's recorded CPU
// use, into the job's idle share (by what it was given), its dynamic share (by
// what it used), unallocated and other processes; the node's is their sum, so
// job + unallocated + other = the node, part by part and in all.
#include "report/attribution_types.hpp"
#include "report/window.hpp"
#include "trace/types.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace jp::report {

// Idle power per channel name (and "rest") from a baseline run: each one's mean power.
[[nodiscard]] std::map<std::string, double> idle_of_baseline(const RunData& baseline);

// The attribution of the run whose data and usage these are; nullopt when the
// usage's facts cannot be read. baseline_idle: from idle_of_baseline (may be empty).
[[nodiscard]] std::optional<Attribution>
attribute(const RunData& data,
          const trace::Usage& usage,
          const std::map<std::string, double>& baseline_idle);

} // namespace jp::report
