// SPDX-License-Identifier: BSD-3-Clause
// One channel's energy over one interval split among the jobs read at both of its ends
// (daemon/accounts.hpp).
#include "daemon/accounts.hpp"
#include "daemon/accounts_state.hpp"
#include "report/attribution_rules.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <span>

namespace jp::daemon {
namespace {

constexpr double k_conservation_j = 1e-3;

// A CPU's (or a GPU's) holders: per user, the parts of the interval its jobs held it.
using Holders = std::map<uid_t, double>;

// A job's part of a CPU several held: the CPU divided among the users holding it (each
// counting once, for the part of the interval it held it), a user's part among its jobs
// by the part each held it; held by nobody for part of the interval, that part is nobody's.
// No user gets more of another's CPU by holding it from many jobs.
double part(const Holders& holders, uid_t uid, double held) {
    double users = 0;
    for (const auto& [u, h] : holders) {
        users += std::min(h, 1.0);
    }
    const auto mine = holders.find(uid);
    const double own = mine == holders.end() ? 0.0 : mine->second;
    return own <= 0 ? 0.0 : held / std::max(own, 1.0) / std::max(users, 1.0);
}

// No user's jobs together claim more than the whole, given or used (many jobs of one user
// that each claim all of a channel dilute nobody else's share, as they would once scaled).
void per_user(std::span<const uid_t> uids, std::vector<attrib::JobClaim>& claims) {
    std::map<uid_t, std::pair<double, double>> sums;
    for (std::size_t k = 0; k < claims.size(); ++k) {
        sums[uids[k]].first += std::max(claims[k].given, 0.0);
        sums[uids[k]].second += std::max(claims[k].use, 0.0);
    }
    for (std::size_t k = 0; k < claims.size(); ++k) {
        const auto& [given, use] = sums[uids[k]];
        claims[k].given /= std::max(given, 1.0);
        claims[k].use /= std::max(use, 1.0);
    }
}

double delta(const std::vector<double>& a, const std::vector<double>& b, int cpu) {
    const auto i = static_cast<std::size_t>(cpu);
    const double before = i < a.size() ? a[i] : 0.0;
    const double after = i < b.size() ? b[i] : 0.0;
    return std::max(after - before, 0.0);
}

int package_of(const attrib::Allocation& a, int cpu) {
    const auto it = a.package_of.find(cpu);
    return it == a.package_of.end() ? 0 : it->second;
}

bool on(const attrib::Allocation& a, int package, int cpu) {
    return package < 0 || package_of(a, cpu) == package;
}

// The job's CPU seconds on `package` (-1: all) between two readings: per CPU where its group
// counts so, else its total apportioned by the busy time on its CPUs (or by its CPUs).
double job_seconds(const attrib::Allocation& a,
                   int package,
                   const attrib::JobCpu::Reading& ra,
                   const attrib::JobCpu::Reading& rb,
                   const std::vector<double>& busy) {
    if (!rb.per_cpu_s.empty()) {
        double s = 0;
        for (std::size_t cpu = 0; cpu < rb.per_cpu_s.size(); ++cpu) {
            if (on(a, package, static_cast<int>(cpu))) {
                s += delta(ra.per_cpu_s, rb.per_cpu_s, static_cast<int>(cpu));
            }
        }
        return s;
    }
    const double total = std::max(rb.total_s - ra.total_s, 0.0);
    if (package < 0) {
        return total;
    }
    double mine = 0;
    double all = 0;
    double count = 0;
    for (const int cpu : a.given_cpus) {
        const double b =
            static_cast<std::size_t>(cpu) < busy.size() ? busy[static_cast<std::size_t>(cpu)] : 0.0;
        all += b;
        if (on(a, package, cpu)) {
            mine += b;
            count += 1;
        }
    }
    if (all > 0) {
        return total * mine / all;
    }
    return a.given_cpus.empty() ? 0.0 : total * count / static_cast<double>(a.given_cpus.size());
}

} // namespace

void Accounts::split(std::size_t channel,
                     double energy_j,
                     double seconds,
                     double idle_w,
                     const Snapshot& a,
                     const Snapshot& b) {
    const auto& c = m_channels[channel];
    std::vector<double> busy(std::max(a.node.size(), b.node.size()), 0.0);
    for (std::size_t cpu = 0; cpu < busy.size(); ++cpu) {
        busy[cpu] = delta(a.node, b.node, static_cast<int>(cpu));
    }
    // The jobs read at both ends (or from when they began, within the interval), and how
    // many of them hold each CPU and each GPU.
    struct In {
        Tracked* t;
        const attrib::JobCpu::Reading* ra;
        const attrib::JobCpu::Reading* rb;
        double held; // the part of the interval it ran
        report::ChannelRule rule;
    };
    const double span = static_cast<double>(b.t_ns - a.t_ns);
    std::vector<In> in;
    // For each CPU (and GPU): each user's holders, by the parts of the interval they held it.
    std::map<int, Holders> cpu_holders;
    std::map<int, Holders> gpu_holders;
    for (const auto& [key, end] : b.jobs) {
        const auto t = m_jobs.find(key);
        if (t == m_jobs.end()) {
            continue;
        }
        const JobPoint* start = nullptr;
        if (const auto ra = a.jobs.find(key); ra != a.jobs.end()) {
            start = &ra->second;
        } else if (const auto& first = t->second->first;
                   first && first->t_ns > a.t_ns && first->t_ns < b.t_ns) {
            start = &*first;
        } else {
            continue;
        }
        const double held =
            span > 0 ? std::clamp(static_cast<double>(end.t_ns - start->t_ns) / span, 0.0, 1.0)
                     : 1.0;
        auto rule = report::rule_for(c, t->second->alloc);
        for (const int cpu : t->second->alloc.given_cpus) {
            cpu_holders[cpu][t->second->job.uid] += held;
        }
        if (rule.gpu && rule.given > 0) {
            gpu_holders[rule.gpu_index][t->second->job.uid] += held;
        }
        in.push_back({t->second.get(), &start->reading, &end.reading, held, std::move(rule)});
    }
    const auto node_rule = report::rule_for(c, m_topology); // which package, whether a GPU
    const int package = node_rule.package;
    double package_busy = 0;
    double package_cpus = 0;
    for (const int cpu : m_node->cpus()) {
        const bool here = on(m_topology, package, cpu);
        package_busy += here && static_cast<std::size_t>(cpu) < busy.size()
                            ? busy[static_cast<std::size_t>(cpu)]
                            : 0.0;
        package_cpus += here ? 1.0 : 0.0;
    }
    const bool gpu = node_rule.gpu;
    std::vector<attrib::JobClaim> claims;
    claims.reserve(in.size());
    for (const auto& j : in) {
        attrib::JobClaim claim;
        const auto& alloc = j.t->alloc;
        if (j.rule.gpu) {
            claim.given =
                j.rule.given > 0 ? part(gpu_holders[j.rule.gpu_index], j.t->job.uid, j.held) : 0.0;
            claim.use = claim.given; // who used a shared GPU how much is not known here
        } else {
            if (j.rule.by_cpus && !alloc.cpus_counted && package_cpus > 0) {
                double cpus = 0;
                for (const int cpu : alloc.given_cpus) {
                    cpus += on(alloc, package, cpu) ? part(cpu_holders[cpu], j.t->job.uid, j.held)
                                                    : 0.0;
                }
                claim.given = cpus / package_cpus;
            } else {
                claim.given = j.rule.given * j.held;
            }
            claim.use = package_busy > 0
                            ? job_seconds(alloc, package, *j.ra, *j.rb, busy) / package_busy
                            : 0.0;
        }
        claims.push_back(claim);
    }
    std::vector<uid_t> uids;
    uids.reserve(in.size());
    for (const auto& j : in) {
        uids.push_back(j.t->job.uid);
    }
    per_user(uids, claims);
    const auto s = attrib::split_node({energy_j, seconds, idle_w, gpu || package_busy > 0}, claims);
    auto& total = m_totals[channel];
    total.energy_j += energy_j;
    total.unallocated_j += s.unallocated_j;
    total.other_j += s.other_j;
    for (std::size_t k = 0; k < in.size(); ++k) {
        in[k].t->job.energy[channel] += s.jobs[k];
        total.jobs_idle_j += s.jobs[k].idle_j;
        total.jobs_dynamic_j += s.jobs[k].dynamic_j;
    }
    ++m_splits;
    m_failures += std::abs(s.residual_j(energy_j)) > k_conservation_j ? 1U : 0U;
    m_given_scaled += s.given_scaled ? 1U : 0U;
    m_use_scaled += s.use_scaled ? 1U : 0U;
}

} // namespace jp::daemon
