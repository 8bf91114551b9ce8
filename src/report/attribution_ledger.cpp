// SPDX-License-Identifier: BSD-3-Clause
#include "report/attribution_ledger.hpp"

#include "core/text.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace jp::report {

namespace {

// The package of each of the ledger's groups (asked one per package of the CPUs the job was
// given): nullopt where a group holds a CPU the job was not given, the node has not, or of
// another package than the others (not asked so: a damaged trace).
std::optional<std::vector<int>> group_packages(const daemon::LedgerReply& ledger,
                                               const std::vector<int>& usable,
                                               const attrib::Allocation& alloc) {
    std::vector<int> out;
    for (const auto& g : ledger.groups) {
        int p = INT32_MIN; // an empty group: none of the job's CPUs there
        for (const int cpu : g) {
            if (!std::ranges::binary_search(usable, cpu) ||
                (p != INT32_MIN && alloc.package(cpu) != p)) {
                return std::nullopt;
            }
            p = alloc.package(cpu);
        }
        out.push_back(p);
    }
    return out;
}

// The package of each of the ledger's entries: each CPU of a view per CPU, each group of a
// grouped one (INT32_MIN: not counted); nullopt where a group is not the job's (above).
std::optional<std::vector<int>> entry_packages(const daemon::LedgerReply& ledger,
                                               const std::vector<int>& usable,
                                               const attrib::Allocation& alloc) {
    if (ledger.grouped) {
        return group_packages(ledger, usable, alloc);
    }
    std::vector<int> out(ledger.cpus.size(), INT32_MIN);
    for (std::size_t i = 0; i < ledger.cpus.size(); ++i) {
        if (std::ranges::binary_search(usable, ledger.cpus[i])) {
            out[i] = alloc.package(ledger.cpus[i]);
        }
    }
    return out;
}

} // namespace

std::expected<std::optional<LedgerShares>, std::string>
LedgerShares::make(const daemon::LedgerReply& ledger, const attrib::Allocation& alloc) {
    if (alloc.cpus_counted || alloc.node_cpus.empty()) {
        return std::nullopt;
    }
    std::map<int, double> online; // CPUs per package, and the node's (-1)
    for (const int cpu : alloc.node_cpus) {
        online[alloc.package(cpu)] += 1;
        online[-1] += 1;
    }
    // The ledger's CPUs (the monitor's) that the job was given and the node has: their
    // packages, once (a crafted trace must not cost a search per CPU per segment).
    auto node = alloc.node_cpus;
    std::ranges::sort(node);
    std::vector<int> usable;
    for (const int cpu : alloc.given_cpus) {
        if (std::ranges::binary_search(node, cpu)) {
            usable.push_back(cpu);
        }
    }
    std::ranges::sort(usable);
    auto packages = entry_packages(ledger, usable, alloc);
    if (!packages) {
        return std::unexpected(std::string{"its groups are not the job's CPUs by package"});
    }
    const auto& package_at = *packages;
    bool shared = false;
    LedgerShares out;
    // Series for the node and the packages the job has CPUs on (at most one per CPU or
    // group: the ledger's segments x CPUs or groups is bounded); any other package the node
    // has: none of it.
    out.m_by_package[-1].reserve(ledger.segments.size());
    for (const int p : package_at) {
        if (p != INT32_MIN) {
            out.m_by_package[p].reserve(ledger.segments.size());
        }
    }
    for (const auto& [p, n] : online) {
        out.m_online.insert(p);
    }
    for (const auto& seg : ledger.segments) {
        std::map<int, double> mine;
        const auto add = [&](std::size_t i, double share, bool alone) {
            if (package_at[i] != INT32_MIN) {
                shared = shared || !alone;
                mine[package_at[i]] += share;
                mine[-1] += share;
            }
        };
        if (ledger.grouped) { // a group's sum is below its size where any CPU was shared
            for (std::size_t g = 0; g < seg.sums.size(); ++g) {
                const auto n = static_cast<double>(ledger.groups[g].size());
                add(g, seg.sums[g], seg.sums[g] >= n * (1 - 1e-12));
            }
        } else {
            std::size_t i = 0;
            for (const auto& [holders, n] : seg.runs) {
                for (int k = 0; k < n; ++k, ++i) {
                    add(i, 1.0 / holders, holders == 1);
                }
            }
        }
        out.m_t.push_back(seg.t_ns);
        for (auto& [p, v] : out.m_by_package) {
            const auto it = mine.find(p);
            v.push_back(it == mine.end() ? 0.0 : it->second / online.at(p));
        }
    }
    if (!shared) {
        return std::nullopt;
    }
    return out;
}

double LedgerShares::given(int package, std::int64_t a, std::int64_t b) const {
    auto it = m_by_package.find(package);
    if (it == m_by_package.end()) {
        if (m_online.contains(package)) {
            return 0.0; // the node's package, none of whose CPUs the job held
        }
        it = m_by_package.find(-1); // a package of no known CPU: the node's share
    }
    const auto& v = it->second;
    // The segment holding a (the first where a lies before them all).
    auto k = static_cast<std::size_t>(
        std::max<std::ptrdiff_t>(0, std::ranges::upper_bound(m_t, a) - m_t.begin() - 1));
    if (b <= a) {
        return v[k];
    }
    double sum = 0;
    for (auto t = a; t < b; ++k) {
        const auto end = k + 1 < m_t.size() ? std::clamp(m_t[k + 1], t, b) : b;
        sum += v[k] * static_cast<double>(end - t);
        t = end;
        if (k + 1 >= m_t.size()) {
            break;
        }
    }
    return sum / static_cast<double>(b - a);
}

std::vector<std::string> ledger_notes(const daemon::LedgerReply& ledger, std::int64_t t0) {
    std::vector<std::string> out;
    const auto seconds = [t0](std::int64_t t) { return static_cast<double>(t - t0) * 1e-9; };
    const bool partial = ledger.counts_complete_from_ns > t0; // a churn made it forget some
    const bool cpus_partial = ledger.complete_from_ns > t0;   // some on the job's CPUs too
    // The same time as the notes print it (a full-resolution view's two times are two jobs'
    // ends, often milliseconds apart).
    const auto tenths = [&](std::int64_t t) { return std::llround(seconds(t) * 10); };
    const bool together = partial && cpus_partial &&
                          tenths(ledger.counts_complete_from_ns) == tenths(ledger.complete_from_ns);
    constexpr const char* k_cpus = "CPUs other jobs held may be counted as this job's alone";
    if (ledger.other_jobs > 0 || partial) {
        const auto forgot =
            partial ? fmt::format(": it had forgotten jobs that ended before {:.1f} s into the "
                                  "run{}",
                                  seconds(ledger.counts_complete_from_ns),
                                  together ? fmt::format(" (too many came and went; until then, "
                                                         "{})",
                                                         k_cpus)
                                           : std::string{})
                    : std::string{};
        // A job it forgot ended during the run: there was one at least.
        const auto others =
            partial ? std::max<std::size_t>(1, ledger.other_jobs) : ledger.other_jobs;
        const auto at_once =
            partial ? std::max<std::size_t>(1, ledger.most_at_once) : ledger.most_at_once;
        out.push_back(fmt::format(
            "jouleprofd's ledger: {}{} other job{} on the node during the run ({} {} at once){}; "
            "the idle power of a CPU several jobs held is split evenly between them",
            partial ? "at least " : "", others, others == 1 ? "" : "s",
            partial ? "at least" : "at most", at_once, forgot));
    }
    if (cpus_partial && !together) { // a churn of jobs made the daemon forget some
        out.push_back(fmt::format("jouleprofd's ledger had forgotten jobs that ended before "
                                  "{:.1f} s into the run (too many came and went): until then, {}",
                                  seconds(ledger.complete_from_ns), k_cpus));
    }
    return out;
}

// Who else held the job's CPUs (jouleprofd's ledger, where it ran): the shares it gives, the
// count of other jobs, a note; a damaged ledger says so and changes nothing.
std::shared_ptr<const LedgerShares> ledger_shares(const nlohmann::json& facts,
                                                  const attrib::Allocation& alloc,
                                                  std::int64_t t0,
                                                  Attribution& out) {
    const auto it = facts.find("ledger");
    if (it == facts.end()) {
        if (const auto why = facts.find("ledger_error"); why != facts.end() && why->is_string()) {
            out.notes.push_back(fmt::format(
                "jouleprofd could not say which of the job's CPUs other jobs held ({}): they "
                "are taken as the job's own",
                one_line(why->get<std::string>(), 200)));
        }
        return nullptr;
    }
    const auto ledger = daemon::parse_ledger(*it, 0);
    if (!ledger) {
        out.notes.emplace_back("the trace's ledger of other jobs is damaged: the CPUs the job "
                               "was given are taken as its own");
        return nullptr;
    }
    out.other_jobs = ledger->other_jobs;
    out.jobs_at_once = ledger->most_at_once;
    for (auto& n : ledger_notes(*ledger, t0)) {
        out.notes.push_back(std::move(n));
    }
    auto shares = LedgerShares::make(*ledger, alloc);
    if (!shares) {
        out.notes.push_back(fmt::format("the trace's ledger of other jobs is damaged ({}): the "
                                        "CPUs the job was given are taken as its own",
                                        shares.error()));
        return nullptr;
    }
    if (!*shares) {
        return nullptr;
    }
    out.method += "; CPUs other jobs held too, split evenly (jouleprofd's ledger)";
    return std::make_shared<const LedgerShares>(std::move(**shares));
}

} // namespace jp::report
