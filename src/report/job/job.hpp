// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One result for a job that ran on several nodes, from one trace per node (the
// Slurm plugin's <dir>/<jobid>.<stepid>/<node>.jptrace): the job's energy,
// average and peak power and runtime; each node's figures; how the nodes
// spread and which lagged; each kind of part summed across nodes; the phases
// the ranks marked. The nodes' traces are laid on one wall-clock axis, each
// corrected by the clock offset its monitor measured. A node missing, or whose
// monitor died, makes the result partial, never dropped.
//
// Nodes are read one at a time: memory holds the job's power grid, a few
// hundred points of each node's profile and each node's figures, never two
// nodes' samples.
#include "core/duration.hpp"
#include "report/basis.hpp"
#include "report/summary.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace jp::report::job {

// How a node's clock was laid on the job's time axis.
struct NodeClock {
    std::int64_t offset_ns = 0;           // its wall clock minus the reference
    std::optional<std::int64_t> error_ns; // ± this; nullopt: not measured (offset 0 assumed)
    std::string reference;                // "file system of DIR"
    std::optional<bool> synchronized;     // the kernel's word on its clock
};

struct NodeResult {
    std::string node;                    // slurm.node, else the trace's host, else the file's stem
    std::optional<std::int64_t> node_id; // slurm.node_id
    std::filesystem::path trace;
    RunSummary run; // the node's figures (its one measured run)
    NodeClock clock;
    std::int64_t start_ns = 0; // on the job's axis: ns since the job's start
    std::int64_t end_ns = 0;
    bool ended = true;           // false: its monitor died (no end edge)
    std::vector<double> profile; // mean node power per column of the job's profile grid
    std::string gpus;            // the step's GPUs as Slurm gave them (its environment)
    // GPU parts named by that list ("gpu<index>"); gpus_known when every index
    // named one, so the node's other GPUs were not the step's (a shared node).
    std::vector<std::string> step_gpus;
    bool gpus_known = false;
};

// One figure over the nodes: lowest, highest, mean, coefficient of variation.
struct Spread {
    double min = 0, max = 0, mean = 0, cv = 0; // cv: std / mean, 0..
    std::string min_node, max_node;
};

// A node that ended (or started) clearly after the others.
struct Straggler {
    std::string node;
    std::string edge;  // "end" | "start"
    double late_s = 0; // after the median node's edge
};

// One kind of part (CPU packages, DRAM, GPUs, the rest of the node) across nodes.
struct PartAcross {
    std::string name; // "cpu_package", "dram", "gpu", "rest", ... (the domain)
    double energy_j = 0;
    double share = 0; // of the job's energy
    std::size_t nodes = 0;
    std::size_t parts = 0; // channels summed (e.g. 2 packages × 4 nodes = 8)
    // Their names, each once in the order met ("cpu0.package", "cpu1.package"): the node
    // tables' names for what this row sums by domain.
    std::vector<std::string> channels;
    std::optional<Bound> bound; // the sensors' bound on energy_j: the channels' added
    Spread per_node;            // energy per node
    Provenance provenance = Provenance::measured; // the least certain among them
};

// A phase name marked on one or more nodes, on the job's axis.
struct PhaseAcross {
    std::string name;
    std::size_t nodes = 0;      // nodes that marked it
    std::int64_t begin_ns = 0;  // the first node's begin
    std::int64_t end_ns = 0;    // the last node's end
    double energy_j = 0;        // summed over the nodes, each over its own occurrences
    std::optional<Bound> bound; // the sensors' bound on energy_j: the nodes' added
    Basis basis;
    Spread duration_s; // per node, from its first begin to its last end
    bool open_at_end = false;
};

// The step's share of its nodes (docs/attribution.md), summed over the nodes: each
// node's job share where its trace has one, else that node's whole figure (named).
struct ShareAcross {
    JobShare share;                 // summed over the attributed nodes (job_bound: added)
    double whole_j = 0;             // the nodes without a share, counted whole as the step's
    std::vector<std::string> whole; // those nodes
    std::size_t attributed = 0;     // nodes with a share
    std::size_t exclusive = 0;      // of those, nodes the step had to itself
    std::string method;             // the nodes' method when they agree, else ""
    // jouleprofd's ledger on each attributed node: how many other jobs ran there during the
    // step (nullopt: no ledger there, so unknown), and the most at once on any one node.
    std::vector<std::pair<std::string, std::optional<std::size_t>>> other_jobs;
    std::size_t other_jobs_at_once = 0;
    // The step's energy: its shares plus the whole nodes.
    [[nodiscard]] double job_j() const noexcept { return share.job_j() + whole_j; }
    // Every attributed node was the step's alone: the nodes' figures are the step's.
    [[nodiscard]] bool all_exclusive() const noexcept {
        return attributed > 0 && exclusive == attributed && whole.empty();
    }
};

struct SlurmEnergy {
    double consumed_j = 0; // sacct's ConsumedEnergyRaw for the step
    std::string step;      // "1234.0"
};

struct JobResult {
    std::string job_id, step; // from slurm.job_id / slurm.step (empty if not Slurm)
    std::string label;
    std::filesystem::path dir;           // where the node traces were found (empty: files given)
    std::size_t expected_nodes = 0;      // slurm.nnodes (0: unknown)
    std::vector<NodeResult> nodes;       // by node id, else name
    std::vector<std::string> missing;    // "node id 3" of nodes expected but absent
    std::vector<std::string> unreadable; // "TRACE: why" of traces that could not be read
    bool partial = false;
    std::string status = "complete"; // the worst node's: complete < failed < interrupted
    std::int64_t wall_start_ns = 0;  // the job's start on the reference clock (Unix ns)
    double runtime_s = 0;            // first node's start to last node's end
    double energy_j = 0;
    // The sensors' bound on energy_j: each node's added (the worst case, as for the
    // parts of one node); none where a node's figure has none.
    std::optional<Bound> bound;
    Basis basis;
    double avg_w = 0;
    std::optional<double> peak_w; // of the summed power on the job's grid
    std::int64_t peak_at_ns = 0;
    std::int64_t step_ns = 0;        // that grid's resolution
    std::int64_t clock_error_ns = 0; // nodes aligned within ± this (the largest node error)
    bool clocks_measured = true;     // every node measured its offset
    Spread energy, runtime, avg_power;
    std::vector<Straggler> stragglers;
    std::vector<PartAcross> parts;
    std::vector<PhaseAcross> phases;
    double idle_gpu_j = 0;     // the step's GPUs it left idle (report/idle.hpp), all nodes
    double other_gpu_j = 0;    // GPUs on the nodes that were not the step's (shared nodes)
    std::vector<double> power; // the job's power per profile column
    std::int64_t profile_step_ns = 0;
    // The step's share of the nodes, where any node's trace has one (`jouleprof record
    // --job`: the Slurm plugin's); absent for traces measured without it.
    std::optional<ShareAcross> share;
    std::optional<SlurmEnergy> slurm;
    std::vector<std::string> notes;
};

struct MergeOptions {
    SummaryOptions summary;
    int profile_columns = 600; // points of the job's and each node's profile
};

// The node traces of one step directory (*.jptrace), sorted by name.
[[nodiscard]] Result<std::vector<std::filesystem::path>>
node_traces_in(const std::filesystem::path& dir);

// The step directories under dir (those holding node traces), or dir itself
// when it holds node traces.
[[nodiscard]] Result<std::vector<std::filesystem::path>>
step_dirs_in(const std::filesystem::path& dir);

// Whether a trace was recorded for a job's node (`jouleprof record`, by hand or by the Slurm
// plugin): its meta says so ("recorded"), or has what only record writes (slurm.*, clock.*).
// A trace that cannot be opened is taken as one: merging it says what is wrong with it.
[[nodiscard]] bool recorded_for_a_node(const std::filesystem::path& trace);

// Merges node traces of one job step. A trace that cannot be read is listed
// (the result is partial); an error only when none can be, or when the traces
// belong to different steps.
[[nodiscard]] Result<JobResult> merge_nodes(std::span<const std::filesystem::path> traces,
                                            const MergeOptions& options = {});

// Waits until every node of the step in dir has closed its trace (its run has
// an end), at most `timeout`; true when all did. Used at a step's end, where
// the last nodes may still be writing.
[[nodiscard]] bool wait_for_nodes(const std::filesystem::path& dir, Nanos timeout);

} // namespace jp::report::job
