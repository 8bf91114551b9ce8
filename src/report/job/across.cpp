// SPDX-License-Identifier: BSD-3-Clause
// What spans the nodes of a job: its totals, how the nodes spread and which
// lagged, each kind of part and each phase summed across nodes.
#include "report/job/detail.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

namespace jp::report::job {
namespace {

// The lower median: with two nodes, the earlier one (a late node is compared
// with a typical node, not with a point halfway to itself).
double median(std::vector<double> v) {
    if (v.empty()) {
        return 0;
    }
    std::ranges::sort(v);
    return v[(v.size() - 1) / 2];
}

// A node lags when its edge is this far after the median node's: a second, or
// 5 % of the median node's runtime when that is longer.
double lag_threshold_s(const JobResult& job) {
    std::vector<double> runtimes;
    runtimes.reserve(job.nodes.size());
    for (const auto& n : job.nodes) {
        runtimes.push_back(n.run.runtime_s);
    }
    return std::max(1.0, 0.05 * median(std::move(runtimes)));
}

// Among the nodes that measured to the end (a node whose monitor died ends early).
void find_stragglers(JobResult& job) {
    std::vector<const NodeResult*> ended;
    for (const auto& n : job.nodes) {
        if (n.ended) {
            ended.push_back(&n);
        }
    }
    if (ended.size() < 2) {
        return;
    }
    const double threshold = lag_threshold_s(job);
    for (const std::string edge : {"start", "end"}) {
        std::vector<double> at;
        at.reserve(ended.size());
        for (const auto* n : ended) {
            at.push_back(static_cast<double>(edge == "start" ? n->start_ns : n->end_ns) * 1e-9);
        }
        const double mid = median(at);
        for (std::size_t i = 0; i < ended.size(); ++i) {
            if (at[i] - mid > threshold) {
                job.stragglers.push_back({ended[i]->node, edge, at[i] - mid});
            }
        }
    }
    std::ranges::stable_sort(job.stragglers, std::greater{}, &Straggler::late_s);
}

Provenance less_certain(Provenance a, Provenance b) {
    return static_cast<int>(a) > static_cast<int>(b) ? a : b;
}

void sum_parts(JobResult& job) {
    struct Acc {
        std::vector<double> per_node;
        std::vector<std::string> names;
        std::size_t parts = 0;
        std::vector<std::string> channels;
        Provenance provenance = Provenance::measured;
        std::optional<Bound> bound = Bound{0, 0, "quantum", {}, {}};
    };
    std::map<std::string, Acc> by_kind;
    std::vector<std::string> order;
    for (const auto& n : job.nodes) {
        std::map<std::string, double> mine;
        auto add = [&](const Item& it, const std::string& kind) {
            if (!by_kind.contains(kind)) {
                order.push_back(kind);
            }
            auto& a = by_kind[kind];
            a.parts += 1;
            if (std::ranges::find(a.channels, it.name) == a.channels.end()) {
                a.channels.push_back(it.name);
            }
            a.provenance = less_certain(a.provenance, it.provenance);
            a.bound = sum_of(a.bound, it.bound);
            mine[kind] += it.energy_j;
        };
        for (const auto& p : n.run.parts) {
            add(p, std::string{to_string(p.domain)});
        }
        if (n.run.rest) {
            add(*n.run.rest, "rest");
        }
        for (const auto& [kind, joules] : mine) {
            by_kind[kind].per_node.push_back(joules);
            by_kind[kind].names.push_back(n.node);
        }
    }
    for (const auto& kind : order) {
        const auto& a = by_kind[kind];
        PartAcross p;
        p.name = kind;
        for (const double j : a.per_node) {
            p.energy_j += j;
        }
        p.share = job.energy_j > 0 ? p.energy_j / job.energy_j : 0;
        p.nodes = a.per_node.size();
        p.parts = a.parts;
        p.channels = a.channels;
        p.per_node = spread_of(a.per_node, a.names);
        p.provenance = a.provenance;
        p.bound = a.bound;
        job.parts.push_back(std::move(p));
    }
}

void sum_phases(JobResult& job) {
    std::map<std::string, PhaseAcross> by_name;
    std::map<std::string, std::pair<std::vector<double>, std::vector<std::string>>> durations;
    std::vector<std::string> order;
    for (const auto& n : job.nodes) {
        const std::int64_t shift = n.start_ns - n.run.run.start_ns; // trace time -> job axis
        for (const auto& ph : n.run.phase_totals) {
            auto [it, fresh] = by_name.try_emplace(ph.name);
            auto& p = it->second;
            const std::int64_t b = ph.begin_ns + shift;
            const std::int64_t e = ph.end_ns + shift;
            if (fresh) {
                order.push_back(ph.name);
                p.name = ph.name;
                p.begin_ns = b;
                p.end_ns = e;
                p.bound = Bound{0, 0, "quantum", {}, {}};
            }
            p.nodes += 1;
            p.begin_ns = std::min(p.begin_ns, b);
            p.end_ns = std::max(p.end_ns, e);
            p.energy_j += ph.node.energy_j;
            p.bound = sum_of(p.bound, ph.node.bound);
            p.basis |= basis_of(ph.node);
            p.open_at_end = p.open_at_end || ph.open_at_end;
            durations[ph.name].first.push_back(static_cast<double>(e - b) * 1e-9);
            durations[ph.name].second.push_back(n.node);
        }
    }
    for (const auto& name : order) {
        auto p = std::move(by_name[name]);
        p.duration_s = spread_of(durations[name].first, durations[name].second);
        job.phases.push_back(std::move(p));
    }
    std::ranges::stable_sort(job.phases, {}, &PhaseAcross::begin_ns);
}

int severity(const std::string& status) {
    return status == "interrupted" ? 2 : status == "failed" ? 1 : 0;
}

void find_missing(JobResult& job) {
    if (job.expected_nodes == 0) {
        return;
    }
    std::set<std::int64_t> ids;
    bool all_have_ids = true;
    for (const auto& n : job.nodes) {
        if (n.node_id) {
            ids.insert(*n.node_id);
        } else {
            all_have_ids = false;
        }
    }
    if (all_have_ids) {
        for (std::int64_t id = 0; id < static_cast<std::int64_t>(job.expected_nodes); ++id) {
            if (!ids.contains(id)) {
                job.missing.push_back(fmt::format("node id {}", id));
            }
        }
    } else if (job.nodes.size() < job.expected_nodes) {
        job.missing.push_back(fmt::format("{} of {} nodes", job.expected_nodes - job.nodes.size(),
                                          job.expected_nodes));
    }
}

} // namespace

Spread spread_of(std::span<const double> values, std::span<const std::string> names) {
    Spread s;
    if (values.empty()) {
        return s;
    }
    const auto [lo, hi] = std::ranges::minmax_element(values);
    s.min = *lo;
    s.max = *hi;
    s.min_node = names[static_cast<std::size_t>(lo - values.begin())];
    s.max_node = names[static_cast<std::size_t>(hi - values.begin())];
    double sum = 0;
    for (const double v : values) {
        sum += v;
    }
    s.mean = sum / static_cast<double>(values.size());
    if (values.size() > 1 && s.mean != 0) {
        double sq = 0;
        for (const double v : values) {
            sq += (v - s.mean) * (v - s.mean);
        }
        s.cv = std::sqrt(sq / static_cast<double>(values.size() - 1)) / std::abs(s.mean);
    }
    return s;
}

void finish_job(JobResult& job) {
    std::vector<double> energy;
    std::vector<double> runtime;
    std::vector<double> power;
    std::vector<std::string> names;
    if (!job.nodes.empty()) {
        job.bound = Bound{0, 0, "quantum", {}, {}};
    }
    for (const auto& n : job.nodes) {
        job.energy_j += n.run.node.energy_j;
        job.bound = sum_of(job.bound, n.run.node.bound);
        job.basis |= basis_of(n.run.node);
        energy.push_back(n.run.node.energy_j);
        for (const auto& d : n.run.idle) {
            job.idle_gpu_j += is_step_gpu(n, d.name) ? d.energy_j : 0;
        }
        for (const auto& p : n.run.parts) {
            job.other_gpu_j += p.domain == Domain::gpu && !is_step_gpu(n, p.name) ? p.energy_j : 0;
        }
        runtime.push_back(n.run.runtime_s);
        power.push_back(n.run.node.avg_w);
        names.push_back(n.node);
        if (severity(n.run.run.status) > severity(job.status)) {
            job.status = n.run.run.status;
        }
        if (!n.ended) {
            job.partial = true;
            job.notes.push_back(fmt::format(
                "{}: its monitor stopped before the step's end (no end edge); its figures end at "
                "its last sample",
                n.node));
        } else if (!n.run.complete) {
            job.partial = true;
            job.notes.push_back(
                fmt::format("{}: a sensor was lost during the step (see its trace)", n.node));
        }
        if (n.clock.error_ns) {
            job.clock_error_ns = std::max(job.clock_error_ns, *n.clock.error_ns);
        } else {
            job.clocks_measured = false;
        }
        if (n.clock.synchronized && !*n.clock.synchronized) {
            job.notes.push_back(fmt::format(
                "{}: its kernel says its clock is not synchronised (NTP); aligned by its offset "
                "to the file system",
                n.node));
        }
    }
    job.avg_w = job.runtime_s > 0 ? job.energy_j / job.runtime_s : 0;
    job.energy = spread_of(energy, names);
    job.runtime = spread_of(runtime, names);
    job.avg_power = spread_of(power, names);
    if (!job.clocks_measured) {
        job.notes.emplace_back("some nodes did not measure their clock offset (traces not made "
                               "by `jouleprof record`): their own wall clocks are taken as is");
    }
    find_missing(job);
    job.partial = job.partial || !job.missing.empty() || !job.unreadable.empty();
    find_stragglers(job);
    sum_parts(job);
    sum_phases(job);
    sum_shares(job);
}

} // namespace jp::report::job
