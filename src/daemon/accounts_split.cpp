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

bool on(const attrib::Allocation& a, int package, int cpu) {
    return package < 0 || a.package(cpu) == package;
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

namespace {

// One job in one interval: its readings at both ends (both null: running, but not read at
// both), the part of the interval it ran, and how the channel is split for it.
struct In {
    Accounts::Tracked* t;
    const attrib::JobCpu::Reading* ra;
    const attrib::JobCpu::Reading* rb;
    double held;
    report::ChannelRule rule;
};

// The channel's package (-1: the node): its busy time in the interval and its CPUs.
struct Package {
    int index = -1;
    double busy = 0;
    double cpus = 0;
};

// Each job's claim on the channel: idle by what it held (divided among users first), use by
// its CPU time on the package; a GPU by who holds it.
std::vector<attrib::JobClaim> claims_of(const std::vector<In>& in,
                                        std::map<int, Holders>& cpu_holders,
                                        std::map<int, Holders>& gpu_holders,
                                        const Package& p,
                                        const std::vector<double>& busy) {
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
            if (j.rule.by_cpus && !alloc.cpus_counted && p.cpus > 0) {
                double cpus = 0;
                for (const int cpu : alloc.given_cpus) {
                    cpus += on(alloc, p.index, cpu) ? part(cpu_holders[cpu], j.t->job.uid, j.held)
                                                    : 0.0;
                }
                claim.given = cpus / p.cpus;
            } else {
                claim.given = j.rule.given * j.held;
            }
            claim.use = p.busy > 0 && j.ra != nullptr
                            ? job_seconds(alloc, p.index, *j.ra, *j.rb, busy) / p.busy
                            : 0.0;
        }
        claims.push_back(claim);
    }
    return claims;
}

// A job not read at both ends: charged what nobody read explains on its CPUs (its own busy
// time there at most), so being too costly to read lowers nobody's share but its own.
void charge_unread(const std::vector<In>& in,
                   std::vector<attrib::JobClaim>& claims,
                   const attrib::Allocation& topology,
                   const Package& p,
                   const std::vector<double>& busy) {
    if (p.busy <= 0) {
        return;
    }
    double explained = 0;
    for (std::size_t k = 0; k < in.size(); ++k) {
        explained += in[k].ra != nullptr ? claims[k].use * p.busy : 0.0;
    }
    const double unexplained = std::max(p.busy - explained, 0.0);
    for (std::size_t k = 0; k < in.size(); ++k) {
        if (in[k].ra != nullptr || in[k].rule.gpu) {
            continue;
        }
        double on_its_cpus = 0;
        for (const int cpu : in[k].t->alloc.given_cpus) {
            on_its_cpus += on(topology, p.index, cpu) && static_cast<std::size_t>(cpu) < busy.size()
                               ? busy[static_cast<std::size_t>(cpu)]
                               : 0.0;
        }
        claims[k].use = std::min(on_its_cpus, unexplained) / p.busy;
    }
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
    // The jobs read at both ends (or from when they began, within the interval), and for
    // each CPU (and GPU) each user's holders, by the parts of the interval they held it.
    const auto span = static_cast<double>(b.t_ns - a.t_ns);
    std::vector<In> in;
    std::map<int, Holders> cpu_holders;
    std::map<int, Holders> gpu_holders;
    const auto add = [&](Tracked& t, const JobPoint* start, const JobPoint* end, double held) {
        auto rule = report::rule_for(c, t.alloc);
        for (const int cpu : t.alloc.given_cpus) {
            cpu_holders[cpu][t.job.uid] += held;
        }
        if (rule.gpu && rule.given > 0) {
            gpu_holders[rule.gpu_index][t.job.uid] += held;
        }
        in.push_back({&t, start != nullptr ? &start->reading : nullptr,
                      end != nullptr ? &end->reading : nullptr, held, std::move(rule)});
    };
    const auto fraction = [&](std::int64_t from, std::int64_t to) {
        return span > 0 ? std::clamp(static_cast<double>(to - from) / span, 0.0, 1.0) : 1.0;
    };
    for (const auto& [key, t] : m_jobs) {
        const auto end = b.jobs.find(key);
        const auto& first = t->first;
        const bool began = first && first->t_ns > a.t_ns && first->t_ns < b.t_ns;
        const auto ra = a.jobs.find(key);
        if (end != b.jobs.end() && ra != a.jobs.end()) {
            add(*t, &ra->second, &end->second, fraction(ra->second.t_ns, end->second.t_ns));
        } else if (end != b.jobs.end() && began) {
            add(*t, &*first, &end->second, fraction(first->t_ns, end->second.t_ns));
        } else if (b.unread.contains(key) || (end != b.jobs.end() && a.unread.contains(key))) {
            add(*t, nullptr, nullptr, began ? fraction(first->t_ns, b.t_ns) : 1.0);
        }
    }
    const auto node_rule = report::rule_for(c, m_topology); // which package, whether a GPU
    Package p{node_rule.package, 0, 0};
    for (const int cpu : m_node->cpus()) {
        const bool here = on(m_topology, p.index, cpu);
        p.busy += here && static_cast<std::size_t>(cpu) < busy.size()
                      ? busy[static_cast<std::size_t>(cpu)]
                      : 0.0;
        p.cpus += here ? 1.0 : 0.0;
    }
    auto claims = claims_of(in, cpu_holders, gpu_holders, p, busy);
    charge_unread(in, claims, m_topology, p, busy);
    std::vector<uid_t> uids;
    uids.reserve(in.size());
    for (const auto& j : in) {
        uids.push_back(j.t->job.uid);
    }
    per_user(uids, claims);
    const auto s =
        attrib::split_node({energy_j, seconds, idle_w, node_rule.gpu || p.busy > 0}, claims);
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
