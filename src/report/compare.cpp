// SPDX-License-Identifier: BSD-3-Clause
#include "report/compare.hpp"

#include "report/format.hpp"
#include "report/units.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace jp::report {
namespace {

std::optional<std::size_t> find_baseline(const std::vector<CompareEntry>& e, std::string_view b) {
    if (b.empty()) {
        return 0;
    }
    if (const auto it = std::ranges::find(e, b, &CompareEntry::name); it != e.end()) {
        return static_cast<std::size_t>(it - e.begin());
    }
    for (std::size_t i = 0; i < e.size(); ++i) {
        if (e[i].group.label == b) {
            return i;
        }
    }
    std::size_t n = 0;
    const auto [ptr, ec] = std::from_chars(b.data(), b.data() + b.size(), n);
    if (ec == std::errc{} && ptr == b.data() + b.size() && n >= 1 && n <= e.size()) {
        return n - 1;
    }
    return std::nullopt;
}

} // namespace

Result<Comparison> compare_groups(const std::vector<RepeatSummary>& groups,
                                  std::string_view baseline) {
    Comparison c;
    for (const auto& g : groups) {
        c.entries.push_back({group_name(g, groups), g, std::nullopt, std::nullopt, std::nullopt,
                             std::nullopt, std::nullopt});
    }
    if (c.entries.empty()) {
        return fail(ErrorKind::config, "compare", "no measured runs to compare");
    }
    const auto b = find_baseline(c.entries, baseline);
    if (!b) {
        std::string names;
        for (const auto& e : c.entries) {
            names += (names.empty() ? "" : ", ") + e.name;
        }
        return fail(ErrorKind::config, "--baseline",
                    fmt::format("'{}' is neither a label nor a position 1..{} (runs: {})", baseline,
                                c.entries.size(), names));
    }
    c.baseline = *b;
    const auto& base = c.entries[*b].group;
    const double base_e = base.job_or_node_j().mean;
    const double base_t = base.runtime_s.mean;
    c.p_const_w = base_t > 0 ? base_e / base_t : 0;
    for (std::size_t i = 0; i < c.entries.size(); ++i) {
        auto& e = c.entries[i];
        const double energy = e.group.job_or_node_j().mean;
        const double runtime = e.group.runtime_s.mean;
        const auto ratio = [&](double x, double of) -> std::optional<double> {
            if (i == c.baseline) {
                return 1.0;
            }
            return of > 0 ? std::optional{x / of} : std::nullopt;
        };
        e.energy_ratio = ratio(energy, base_e);
        e.runtime_ratio = ratio(runtime, base_t);
        if (c.p_const_w > 0) {
            e.estimate_j = runtime * c.p_const_w;
            if (energy > 0) {
                e.error_percent = (*e.estimate_j - energy) / energy * 100;
            }
        }
    }
    for (std::size_t i = 0; i < c.entries.size(); ++i) {
        if (i != c.baseline) {
            c.entries[i].vs_baseline =
                difference(c.entries[i].group.job_or_node_j(), base.job_or_node_j());
        }
    }
    return c;
}

namespace {

// Whom a note is about first, then what it says of them: a list at the end of a long sentence
// read as part of its parenthesis. A dash after the names, which may hold ':'.
std::string comparison_notes(const Comparison& c) {
    std::vector<std::string> estimated;
    std::vector<std::string> lower_bounds;
    std::vector<std::string> attributed;
    std::string failed; // groups of failed runs, or with runs left out
    for (const auto& e : c.entries) {
        const auto& g = e.group;
        if (least_certain(g) == Provenance::estimated) {
            estimated.push_back(e.name);
        }
        if (any_lower_bound(g)) {
            lower_bounds.push_back(e.name);
        }
        if (g.job_energy_j && shared_node(g)) {
            attributed.push_back(e.name);
        }
        if (g.all_failed || !g.left_out.empty()) {
            failed += fmt::format("note: {} — {}{}\n", e.name, runs_text(g),
                                  g.all_failed ? ": its figures are of failed runs" : "");
        }
    }
    std::string out;
    const auto note = [&](const std::vector<std::string>& names, std::string_view says) {
        if (!names.empty()) {
            out += fmt::format("note: {} — {}\n", fmt::join(names, ", "), says);
        }
    };
    note(estimated, "the node energy is estimated, not measured");
    note(lower_bounds, "the node energy is a lower bound, the sum of its parts; the rest of the "
                       "node has no meter and no model ([node] rest_watts gives it one)");
    note(attributed, "Energy and Avg power are the job's share of its shared node; the node's "
                     "are node_energy_j and node_avg_w in --json (docs/attribution.md)");
    return out + failed;
}

} // namespace

std::string format_comparison(const Comparison& c) {
    constexpr std::string_view k_row =
        "{:>2}  {:<24} {:>22} {:>8} {:>18} {:>8} {:>18} {:>14} {:>9}\n";
    const auto& base = c.entries[c.baseline];
    double largest = 0;
    for (const auto& e : c.entries) {
        largest = std::max({largest, e.group.job_or_node_j().mean, e.estimate_j.value_or(0)});
    }
    const auto or_na = [](const std::optional<double>& v, const char* f) {
        return v ? fmt::format(fmt::runtime(f), *v) : std::string{"n/a"};
    };
    const auto u = energy_unit(largest);
    std::string out = fmt::format(fmt::runtime(k_row), "#", "run",
                                  fmt::format("Energy [{}]", u.name), "× base", "Runtime", "× base",
                                  "Avg power [W]", fmt::format("Estimate [{}]", u.name), "Error");
    for (std::size_t i = 0; i < c.entries.size(); ++i) {
        const auto& e = c.entries[i];
        out += fmt::format(
            fmt::runtime(k_row), i + 1, e.name, energy_pm(e.group.job_or_node_j(), u),
            or_na(e.energy_ratio, "{:.3f}"), runtime_pm(e.group.runtime_s),
            or_na(e.runtime_ratio, "{:.3f}"), pm(e.group.job_or_node_w(), 1, 1),
            e.estimate_j ? fmt::format("{:.{}f}", *e.estimate_j * u.per_joule, u.digits) : "n/a",
            e.error_percent
                ? fmt::format("{:+.1f} %",
                              std::abs(*e.error_percent) < 0.05 ? 0.0 : *e.error_percent)
                : std::string{"n/a"});
    }
    out += fmt::format("baseline: #{} {}. Estimate = runtime × {:.1f} W (the baseline's average "
                       "{}), as if energy were runtime × a constant power; Error = "
                       "(estimate − measured) / measured.\n",
                       c.baseline + 1, base.name, c.p_const_w,
                       base.group.job_energy_j && shared_node(base.group)
                           ? "power, its job's share of the node"
                           : "node power");
    for (const auto& e : c.entries) {
        if (e.vs_baseline) {
            out += fmt::format("{} — {}\n", e.name, difference_text(*e.vs_baseline, base.name));
        }
    }
    return out + comparison_notes(c);
}

namespace {

nlohmann::json opt_json(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

} // namespace

nlohmann::json comparison_json(const Comparison& c) {
    nlohmann::json entries = nlohmann::json::array();
    for (std::size_t i = 0; i < c.entries.size(); ++i) {
        const auto& e = c.entries[i];
        const auto& g = e.group;
        entries.push_back(
            {{"index", i + 1},
             {"name", e.name},
             {"label", g.label},
             {"traces", g.traces},
             {"runs", g.runs.size()},
             {"node_energy_j", stat_json(g.node_energy_j)},
             {"job_energy_j",
              g.job_energy_j ? stat_json(*g.job_energy_j) : nlohmann::json(nullptr)},
             {"runtime_s", stat_json(g.runtime_s)},
             {"node_avg_w", stat_json(g.node_avg_w)},
             {"job_avg_w", g.job_avg_w ? stat_json(*g.job_avg_w) : nlohmann::json(nullptr)},
             {"provenance", g.runs.empty() ? "" : to_string(least_certain(g))},
             {"lower_bound", any_lower_bound(g)},
             {"energy_ratio", opt_json(e.energy_ratio)},
             {"runtime_ratio", opt_json(e.runtime_ratio)},
             {"estimate_j", opt_json(e.estimate_j)},
             {"estimate_error_percent", opt_json(e.error_percent)}});
        if (const auto& d = e.vs_baseline) {
            entries.back()["vs_baseline"] = {
                {"verdict", to_string(d->verdict)},
                {"energy_ratio_low", d->ratio_low},
                {"energy_ratio_high",
                 std::isfinite(d->ratio_high) ? nlohmann::json(d->ratio_high) : nullptr},
                {"runs_in_range", d->runs_known},
                {"sensor_bound_in_range", d->sensor_known}};
        }
    }
    return {{"baseline", {{"index", c.baseline + 1}, {"name", c.entries[c.baseline].name}}},
            {"p_const_w", c.p_const_w},
            {"entries", entries}};
}

} // namespace jp::report
