// SPDX-License-Identifier: BSD-3-Clause
// The job's merged result as JSON: the job, each node (its run as `report
// --json` gives it, plus its place on the job's axis and its clock), and what
// spans the nodes.
#include "report/format.hpp"
#include "report/job/format.hpp"

#include <cmath>
#include <fmt/format.h>

namespace jp::report::job {

namespace {

nlohmann::json spread_json(const Spread& s) {
    return {{"min", s.min}, {"max", s.max},           {"mean", s.mean},
            {"cv", s.cv},   {"min_node", s.min_node}, {"max_node", s.max_node}};
}

nlohmann::json node_json(const NodeResult& n) {
    auto r = run_to_json(n.run);
    r["node"] = n.node;
    r["node_id"] = n.node_id ? nlohmann::json(*n.node_id) : nlohmann::json();
    r["trace"] = n.trace.string();
    r["start_s"] = static_cast<double>(n.start_ns) * 1e-9;
    r["end_s"] = static_cast<double>(n.end_ns) * 1e-9;
    r["ended"] = n.ended;
    r["step_gpus"] = n.gpus;
    r["step_gpu_parts"] = n.step_gpus;
    r["clock"] = {{"offset_s", static_cast<double>(n.clock.offset_ns) * 1e-9},
                  {"error_s", n.clock.error_ns
                                  ? nlohmann::json(static_cast<double>(*n.clock.error_ns) * 1e-9)
                                  : nlohmann::json()},
                  {"reference", n.clock.reference},
                  {"synchronized", n.clock.synchronized ? nlohmann::json(*n.clock.synchronized)
                                                        : nlohmann::json()}};
    return r;
}

nlohmann::json across_json(const JobResult& j) {
    nlohmann::json out;
    auto& stragglers = out["stragglers"] = nlohmann::json::array();
    for (const auto& s : j.stragglers) {
        stragglers.push_back({{"node", s.node}, {"edge", s.edge}, {"late_s", s.late_s}});
    }
    auto& parts = out["parts"] = nlohmann::json::array();
    for (const auto& p : j.parts) {
        nlohmann::json pj{{"name", p.name},
                          {"energy_j", p.energy_j},
                          {"share", p.share},
                          {"nodes", p.nodes},
                          {"channels", p.parts},
                          {"channel_names", p.channels},
                          {"per_node_j", spread_json(p.per_node)},
                          {"provenance", to_string(p.provenance)}};
        if (p.bound) {
            add_bound_json(pj, *p.bound, p.energy_j, "energy");
        }
        parts.push_back(std::move(pj));
    }
    auto& phases = out["phases"] = nlohmann::json::array();
    for (const auto& p : j.phases) {
        auto& pj =
            phases.emplace_back(nlohmann::json{{"name", p.name},
                                               {"nodes", p.nodes},
                                               {"begin_s", static_cast<double>(p.begin_ns) * 1e-9},
                                               {"end_s", static_cast<double>(p.end_ns) * 1e-9},
                                               {"energy_j", p.energy_j},
                                               {"estimated", p.basis.estimated},
                                               {"lower_bound", p.basis.lower_bound},
                                               {"duration_s", spread_json(p.duration_s)},
                                               {"open_at_end", p.open_at_end}});
        if (p.bound) {
            add_bound_json(pj, *p.bound, p.energy_j, "energy");
        }
    }
    return out;
}

// The step's share of its nodes, summed (null where no node recorded one).
nlohmann::json share_json(const JobResult& j) {
    if (!j.share) {
        return nullptr;
    }
    const auto& s = *j.share;
    nlohmann::json a{{"exclusive", s.all_exclusive()},
                     {"method", s.method.empty() ? nlohmann::json() : nlohmann::json(s.method)},
                     {"job_j", s.job_j()},
                     {"idle_j", s.share.job_idle_j},
                     {"dynamic_j", s.share.job_dynamic_j},
                     {"unallocated_j", s.share.unallocated_j},
                     {"other_j", s.share.other_j},
                     {"node_j", j.energy_j},
                     {"nodes_attributed", s.attributed},
                     {"nodes_exclusive", s.exclusive},
                     {"nodes_counted_whole", s.whole},
                     {"whole_j", s.whole_j}};
    // Per attributed node, how many other jobs its jouleprofd saw (null: no ledger there).
    auto& by_node = a["other_jobs_by_node"] = nlohmann::json::object();
    bool any_ledger = false;
    for (const auto& [node, n] : s.other_jobs) {
        auto key = node; // two traces of one node name (a copy?) keep a key each: "n1#2"
        for (int k = 2; by_node.contains(key); ++k) {
            key = fmt::format("{}#{}", node, k);
        }
        by_node[key] = n ? nlohmann::json(*n) : nlohmann::json();
        any_ledger = any_ledger || n.has_value();
    }
    a["other_jobs_at_once"] = any_ledger ? nlohmann::json(s.other_jobs_at_once) : nlohmann::json();
    if (s.share.job_bound) {
        add_bound_json(a, *s.share.job_bound, s.job_j(), "job");
    }
    return a;
}

} // namespace

nlohmann::json to_json(const JobResult& j) {
    nlohmann::json out{{"job_id", j.job_id},
                       {"step", j.step},
                       {"label", j.label},
                       {"status", j.status},
                       {"partial", j.partial},
                       {"nodes_expected", j.expected_nodes},
                       {"nodes_found", j.nodes.size()},
                       {"missing", j.missing},
                       {"unreadable", j.unreadable},
                       {"start_utc_ns", j.wall_start_ns},
                       {"runtime_s", j.runtime_s},
                       {"energy_j", j.energy_j},
                       {"estimated", j.basis.estimated},
                       {"lower_bound", j.basis.lower_bound},
                       {"avg_w", j.avg_w},
                       {"peak_w", j.peak_w ? nlohmann::json(*j.peak_w) : nlohmann::json()},
                       {"peak_at_s", static_cast<double>(j.peak_at_ns) * 1e-9},
                       {"peak_resolution_s", static_cast<double>(j.step_ns) * 1e-9},
                       {"clock_error_s", static_cast<double>(j.clock_error_ns) * 1e-9},
                       {"clocks_measured", j.clocks_measured},
                       {"idle_gpu_energy_j", j.idle_gpu_j},
                       {"other_gpu_energy_j", j.other_gpu_j},
                       {"spread",
                        {{"energy_j", spread_json(j.energy)},
                         {"runtime_s", spread_json(j.runtime)},
                         {"avg_w", spread_json(j.avg_power)}}},
                       {"notes", j.notes}};
    if (j.bound) {
        add_bound_json(out, *j.bound, j.energy_j, "energy");
    }
    auto& nodes = out["nodes"] = nlohmann::json::array();
    for (const auto& n : j.nodes) {
        nodes.push_back(node_json(n));
    }
    out.update(across_json(j));
    out["attribution"] = share_json(j);
    if (j.slurm) {
        out["slurm"] = {
            {"step", j.slurm->step},
            {"consumed_energy_j", j.slurm->consumed_j},
            // Above a lower bound's (the parts') bound says nothing: null, as without one.
            {"inside_bound",
             j.bound && (!j.basis.lower_bound || j.slurm->consumed_j <= j.bound->high)
                 ? nlohmann::json(j.bound->low <= j.slurm->consumed_j &&
                                  j.slurm->consumed_j <= j.bound->high)
                 : nlohmann::json()},
            {"difference", j.slurm->consumed_j > 0
                               ? (j.energy_j - j.slurm->consumed_j) / j.slurm->consumed_j
                               : 0.0}};
    }
    return out;
}

} // namespace jp::report::job
