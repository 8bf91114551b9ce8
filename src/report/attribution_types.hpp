// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What report/attribution.hpp computes: the job's share of a shared node's energy.
#include "attrib/share.hpp"
#include "report/bound.hpp"

#include <optional>
#include <string>
#include <vector>

namespace jp::report {

// The job's share of one figure, and where the sensors' own limits put the job's part
// (report/share_bound.hpp): absent where a figure it is split from has no bound (a power
// reading, a model) or where a counter's values are estimates (a jump).
struct JobShare : attrib::Share {
    std::optional<Bound> job_bound;
};

struct PartShare {
    std::string name; // a part, or "rest"
    JobShare share;
    std::optional<double> idle_w; // the idle power used; none: unknown (all by use)
    std::string by; // "package 0's cores", "memory", "holds the GPU", "the node's cores"
};

struct Attribution {
    // The job was given the whole node and other processes drew less than 1 % of
    // its energy: the node's figures are the job's.
    bool exclusive = false;
    std::string method;      // one line: how the split was made
    std::string job_cpu;     // how the job's CPU time was read
    std::string idle_source; // "config", "baseline run", "" (unknown: all by use)
    JobShare node;
    std::vector<PartShare> parts; // counted parts, then the rest when there is one
    double job_cpu_s = 0;         // the job's CPU seconds over the run
    double node_busy_s = 0;       // every process's
    double given_cpus = 0;        // of node_cpus
    double node_cpus = 0;
    // jouleprofd's ledger (where the run had one): other jobs on the node during the run,
    // and the most of them at once.
    std::optional<std::size_t> other_jobs;
    std::size_t jobs_at_once = 0;
    std::vector<std::string> notes;
};

} // namespace jp::report
