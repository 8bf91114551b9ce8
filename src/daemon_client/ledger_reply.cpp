// SPDX-License-Identifier: BSD-3-Clause
#include "daemon_client/ledger_reply.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace jp::daemon {
namespace {

constexpr std::int64_t k_max_time = std::int64_t{1} << 61;

std::optional<std::int64_t> time_of(const nlohmann::json& j, std::int64_t shift) {
    if (!j.is_number_integer()) {
        return std::nullopt;
    }
    const auto t = j.get<std::int64_t>();
    if (t < -k_max_time || t > k_max_time || shift < -k_max_time || shift > k_max_time) {
        return std::nullopt;
    }
    return t - shift;
}

// A whole number 0..most, whether JSON holds it signed or unsigned (an unsigned one beyond
// 2^63 reads back negative: refused).
std::optional<std::size_t> count_of(const nlohmann::json& j, std::size_t most) {
    if (!j.is_number_integer() || j.get<std::int64_t>() < 0 ||
        static_cast<std::uint64_t>(j.get<std::int64_t>()) > most) {
        return std::nullopt;
    }
    return static_cast<std::size_t>(j.get<std::int64_t>());
}

// CPU numbers 0..65535, ascending, into out; false where they are not.
bool cpus_of(const nlohmann::json& j, std::vector<int>& out) {
    if (!j.is_array() || j.size() > 65536) {
        return false;
    }
    for (const auto& c : j) {
        const auto cpu = count_of(c, 65535);
        if (!cpu || (!out.empty() && static_cast<int>(*cpu) <= out.back())) {
            return false;
        }
        out.push_back(static_cast<int>(*cpu));
    }
    return true;
}

// A grouped view's groups and segments (the counts already read into r).
bool parse_grouped(const nlohmann::json& groups,
                   const nlohmann::json& segments,
                   std::int64_t shift_ns,
                   LedgerReply& r) {
    if (!groups.is_array() || groups.size() > k_max_ledger_groups ||
        segments.size() > k_max_ledger_grouped_segments ||
        segments.size() * std::max<std::size_t>(1, groups.size()) > k_max_ledger_cells) {
        return false;
    }
    r.grouped = true;
    std::vector<int> all;
    for (const auto& g : groups) {
        if (!cpus_of(g, r.groups.emplace_back())) {
            return false;
        }
        all.insert(all.end(), r.groups.back().begin(), r.groups.back().end());
        if (all.size() > 65536) {
            return false;
        }
    }
    std::ranges::sort(all);
    if (std::ranges::adjacent_find(all) != all.end()) {
        return false; // a CPU in two groups
    }
    // Each CPU is held by this session and at most every other job at once.
    const double most = static_cast<double>(r.most_at_once) + 1;
    for (const auto& s : segments) {
        if (!s.is_array() || s.size() != 2 || !s[1].is_array() || s[1].size() != r.groups.size()) {
            return false;
        }
        const auto t = time_of(s[0], shift_ns);
        if (!t || (!r.segments.empty() && *t <= r.segments.back().t_ns)) {
            return false;
        }
        LedgerReply::Segment seg{*t, {}, {}};
        for (std::size_t g = 0; g < r.groups.size(); ++g) {
            const auto n = static_cast<double>(r.groups[g].size());
            if (!s[1][g].is_number() || !std::isfinite(s[1][g].get<double>())) {
                return false;
            }
            const double sum = s[1][g].get<double>();
            if (sum > n * (1 + 1e-9) || sum < n / most * (1 - 1e-9)) {
                return false;
            }
            seg.sums.push_back(std::min(sum, n)); // a share is never more than the whole
        }
        r.segments.push_back(std::move(seg));
    }
    return true;
}

} // namespace

std::vector<int> LedgerReply::held(std::size_t k) const {
    std::vector<int> out;
    out.reserve(cpus.size());
    for (const auto& [holders, n] : segments.at(k).runs) {
        out.insert(out.end(), static_cast<std::size_t>(n), holders);
    }
    return out;
}

std::optional<LedgerReply> parse_ledger(const nlohmann::json& j, std::int64_t shift_ns) {
    if (!j.is_object()) {
        return std::nullopt;
    }
    const auto cpus = j.find("cpus");
    const auto groups = j.find("groups");
    const auto segments = j.find("segments");
    const auto others = j.find("other_jobs");
    const auto most = j.find("most_at_once");
    const auto complete = j.find("complete_from_ns");
    // One form or the other: CPUs, or groups.
    if ((cpus == j.end()) == (groups == j.end()) || segments == j.end() || !segments->is_array() ||
        segments->empty() || others == j.end() || most == j.end() || complete == j.end()) {
        return std::nullopt;
    }
    LedgerReply r;
    if (cpus != j.end() && (segments->size() > k_max_ledger_segments || !cpus_of(*cpus, r.cpus))) {
        return std::nullopt;
    }
    const auto n_others = count_of(*others, 1'000'000'000);
    const auto n_most = count_of(*most, 1'000'000'000);
    const auto from = time_of(*complete, shift_ns);
    if (!n_others || !n_most || !from || *n_most > *n_others) {
        return std::nullopt;
    }
    r.other_jobs = *n_others;
    r.most_at_once = *n_most;
    r.complete_from_ns = *from;
    // An older daemon says one time for both (it forgot jobs on any CPU alike).
    const auto counts = j.find("counts_complete_from_ns");
    const auto counts_from = counts == j.end() ? from : time_of(*counts, shift_ns);
    if (!counts_from) {
        return std::nullopt;
    }
    r.counts_complete_from_ns = *counts_from;
    if (groups != j.end()) {
        return parse_grouped(*groups, *segments, shift_ns, r) ? std::optional{std::move(r)}
                                                              : std::nullopt;
    }
    std::size_t pairs = 0;
    for (const auto& s : *segments) {
        if (!s.is_array() || s.size() != 2 || !s[1].is_array()) {
            return std::nullopt;
        }
        const auto t = time_of(s[0], shift_ns);
        if (!t || (!r.segments.empty() && *t <= r.segments.back().t_ns)) {
            return std::nullopt;
        }
        LedgerReply::Segment seg{*t, {}, {}};
        std::size_t covered = 0;
        for (const auto& run : s[1]) {
            if (++pairs > k_max_ledger_pairs || !run.is_array() || run.size() != 2) {
                return std::nullopt;
            }
            // A CPU is held by this session and at most every other job at once.
            const auto holders = count_of(run[0], *n_most + 1);
            const auto n = count_of(run[1], r.cpus.size());
            if (!holders || *holders == 0 || !n || *n == 0) {
                return std::nullopt;
            }
            covered += *n;
            seg.runs.emplace_back(static_cast<int>(*holders), static_cast<int>(*n));
        }
        if (covered != r.cpus.size()) {
            return std::nullopt;
        }
        r.segments.push_back(std::move(seg));
        // What a reader expands (a count per CPU per segment) stays bounded too.
        if (r.segments.size() * std::max<std::size_t>(1, r.cpus.size()) > k_max_ledger_cells) {
            return std::nullopt;
        }
    }
    return r;
}

nlohmann::json ledger_json(const LedgerReply& r) {
    nlohmann::json out{{"other_jobs", r.other_jobs},
                       {"most_at_once", r.most_at_once},
                       {"complete_from_ns", r.complete_from_ns},
                       {"counts_complete_from_ns", r.counts_complete_from_ns}};
    nlohmann::json segments = nlohmann::json::array();
    for (const auto& s : r.segments) {
        if (r.grouped) {
            segments.push_back({s.t_ns, s.sums});
            continue;
        }
        nlohmann::json runs = nlohmann::json::array();
        for (const auto& [holders, n] : s.runs) {
            runs.push_back({holders, n});
        }
        segments.push_back({s.t_ns, std::move(runs)});
    }
    out[r.grouped ? "groups" : "cpus"] =
        r.grouped ? nlohmann::json(r.groups) : nlohmann::json(r.cpus);
    out["segments"] = std::move(segments);
    return out;
}

} // namespace jp::daemon
