// SPDX-License-Identifier: BSD-3-Clause
#include "report/attribution_ledger.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace jp::report {

std::optional<LedgerShares> LedgerShares::make(const daemon::LedgerReply& ledger,
                                               const attrib::Allocation& alloc) {
    if (alloc.cpus_counted || alloc.node_cpus.empty()) {
        return std::nullopt;
    }
    const auto package = [&](int cpu) {
        const auto it = alloc.package_of.find(cpu);
        return it == alloc.package_of.end() ? 0 : it->second;
    };
    std::map<int, double> online; // CPUs per package, and the node's (-1)
    for (const int cpu : alloc.node_cpus) {
        online[package(cpu)] += 1;
        online[-1] += 1;
    }
    bool shared = false;
    LedgerShares out;
    for (std::size_t k = 0; k < ledger.segments.size(); ++k) {
        const auto held = ledger.held(k);
        std::map<int, double> mine;
        for (std::size_t i = 0; i < ledger.cpus.size(); ++i) {
            const int cpu = ledger.cpus[i];
            // Only CPUs the job was given and the node has (the ledger reads the monitor's).
            if (!std::ranges::binary_search(alloc.node_cpus, cpu) ||
                std::ranges::find(alloc.given_cpus, cpu) == alloc.given_cpus.end()) {
                continue;
            }
            shared = shared || held[i] > 1;
            mine[package(cpu)] += 1.0 / held[i];
            mine[-1] += 1.0 / held[i];
        }
        out.m_t.push_back(ledger.segments[k].t_ns);
        for (const auto& [p, n] : online) {
            const auto it = mine.find(p);
            out.m_by_package[p].push_back(it == mine.end() ? 0.0 : it->second / n);
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

std::string ledger_note(const daemon::LedgerReply& ledger) {
    if (ledger.other_jobs == 0) {
        return {};
    }
    return fmt::format("jouleprofd's ledger: {} other job{} on the node during the run (at most "
                       "{} at once); the idle power of a CPU several jobs held is split evenly "
                       "between them",
                       ledger.other_jobs, ledger.other_jobs == 1 ? "" : "s", ledger.most_at_once);
}

// Who else held the job's CPUs (jouleprofd's ledger, where it ran): the shares it gives, the
// count of other jobs, a note; a damaged ledger says so and changes nothing.
std::shared_ptr<const LedgerShares>
ledger_shares(const nlohmann::json& facts, const attrib::Allocation& alloc, Attribution& out) {
    const auto it = facts.find("ledger");
    if (it == facts.end()) {
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
    if (auto n = ledger_note(*ledger); !n.empty()) {
        out.notes.push_back(std::move(n));
    }
    auto shares = LedgerShares::make(*ledger, alloc);
    if (!shares) {
        return nullptr;
    }
    out.method += "; CPUs other jobs held too, split evenly (jouleprofd's ledger)";
    return std::make_shared<const LedgerShares>(std::move(*shares));
}

} // namespace jp::report
