// SPDX-License-Identifier: BSD-3-Clause
#include "report/format.hpp"

#include "core/duration.hpp"
#include "core/text.hpp"
#include "report/units.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace jp::report {
namespace {

constexpr std::string_view k_row = "{:<28} {:>22} {:>18} {:>18} {:>18}  {}\n";

// One line of the table: an item's figures (a runtime only for the node and phases).
struct Row {
    std::string name;
    Stat energy;
    Stat power;
    std::string runtime;
    Stat peak;
    std::string provenance;
};

void row(std::string& out, const EnergyUnit& u, const Row& r) {
    // A name wider than its column has a line of its own, so the figures stay in their columns.
    constexpr std::size_t k_name_width = 28;
    const auto chars = static_cast<std::size_t>(std::ranges::count_if(
        r.name, [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; }));
    std::string_view name = r.name;
    if (chars > k_name_width) {
        out += r.name + "\n";
        name = {};
    }
    out += fmt::format(fmt::runtime(k_row), name, energy_pm(r.energy, u), pm(r.power, 1, 1),
                       r.runtime, r.peak.n > 0 ? pm(r.peak, 1, 1) : std::string{}, r.provenance);
}

const Item* find_part(const Figures& run, const std::string& name) {
    if (name == "rest") {
        return run.rest ? &*run.rest : nullptr;
    }
    const auto it = std::ranges::find(run.parts, name, &Item::name);
    return it == run.parts.end() ? nullptr : &*it;
}

// The window of a run the rows are about: the whole run, or one phase (all its occurrences).
const Figures* window_of(const RunSummary& run, const std::string& phase) {
    if (phase.empty()) {
        return &run;
    }
    const auto it = std::ranges::find(run.phase_totals, phase, &PhaseSummary::name);
    return it == run.phase_totals.end() ? nullptr : &*it;
}

// An item's provenance; with repeats, the sensors' bound on the mean (energy), not one
// run's (docs/uncertainty.md).
std::string mean_provenance(const Item& first, const Stat& energy, std::size_t runs) {
    if (runs <= 1) {
        return provenance_text(first);
    }
    auto base = first;
    base.bound.reset();
    auto prov = provenance_text(base);
    if (energy.sensor) {
        prov += bound_text(*energy.sensor, energy.mean) + " on the mean";
    }
    return prov;
}

// Provenance of a part, with its mean utilisation over the group's runs (in that window).
std::string part_prov(const RepeatSummary& r,
                      const std::string& phase,
                      const std::string& name,
                      const Stat& energy) {
    const Item* first = nullptr;
    std::vector<double> util;
    for (const auto& run : r.runs) {
        const Figures* f = window_of(run, phase);
        if (const Item* it = f != nullptr ? find_part(*f, name) : nullptr) {
            first = first != nullptr ? first : it;
            if (it->mean_util) {
                util.push_back(*it->mean_util);
            }
        }
    }
    if (first == nullptr) {
        return {};
    }
    auto prov = mean_provenance(*first, energy, r.runs.size());
    if (!util.empty()) {
        prov += fmt::format(", util {:.0f} %", stat_of(util).mean);
    }
    return prov;
}

void part_rows(std::string& out,
               const EnergyUnit& u,
               const RepeatSummary& r,
               const FigureStats& s,
               const std::string& phase) {
    for (std::size_t i = 0; i < s.part_energy_j.size(); ++i) {
        const auto& name = s.part_energy_j[i].first;
        row(out, u,
            {"    " + name, s.part_energy_j[i].second, s.part_avg_w[i].second, "",
             s.part_peak_w[i].second, part_prov(r, phase, name, s.part_energy_j[i].second)});
    }
}

void other_rows(std::string& out, const EnergyUnit& u, const RepeatSummary& r) {
    for (const auto& o : r.runs.front().others) {
        std::vector<double> e;
        std::vector<double> w;
        std::vector<std::optional<Bound>> bounds;
        for (const auto& run : r.runs) {
            const auto it = std::ranges::find(run.others, o.name, &Item::name);
            if (it != run.others.end()) {
                e.push_back(it->energy_j);
                w.push_back(it->avg_w);
                bounds.push_back(it->bound);
            }
        }
        auto energy = stat_of(e);
        energy.sensor = mean_bound(bounds);
        std::string why = "not summed: " + not_summed_reason(o.parent, o.backend);
        if (energy.sensor) {
            why += bound_text(*energy.sensor, energy.mean) + (e.size() > 1 ? " on the mean" : "");
        }
        row(out, u, {"  " + o.name, energy, stat_of(w), "", {}, why});
    }
}

void phase_rows(std::string& out, const EnergyUnit& u, const RepeatSummary& r) {
    for (const auto& p : r.phases) {
        std::string name = "  phase " + p.name;
        if (p.occurrences > p.runs) { // mean occurrences per run
            name +=
                " (×" +
                plain_number(static_cast<double>(p.occurrences) / static_cast<double>(p.runs), 3) +
                ")";
        }
        std::string prov{to_string(r.runs.front().node.provenance)};
        prov += r.runs.front().node.lower_bound ? ", lower bound" : "";
        if (p.node_energy_j.sensor) {
            prov += bound_text(*p.node_energy_j.sensor, p.node_energy_j.mean) +
                    (p.runs > 1 ? " on the mean" : "");
        }
        if (p.runs < r.runs.size()) {
            prov += fmt::format("; in {} of {} runs", p.runs, r.runs.size());
        }
        // On a shared node the phase's figures are the node's: the job's share beside them,
        // as the run's line below the table gives it (a new user charged a sleeping phase
        // the busy neighbour's energy from this row).
        if (p.job_energy_j && shared_node(r)) {
            prov += "; job's share " + energy_text(*p.job_energy_j);
            if (const auto& b = p.job_energy_j->sensor) {
                prov += fmt::format(
                    " ({}{}–{}{})",
                    b->half_width() > std::abs(p.job_energy_j->mean) ? "not measurable here: " : "",
                    energy_text(b->low), energy_text(b->high), p.runs > 1 ? " on the mean" : "");
            }
        }
        row(out, u,
            {name, p.node_energy_j, p.node_avg_w, runtime_pm(p.runtime_s), p.node_peak_w, prov});
        part_rows(out, u, r, p, p.name);
    }
}

void group_rows(std::string& out,
                const EnergyUnit& u,
                const RepeatSummary& r,
                const std::string& name) {
    const auto& first = r.runs.front();
    // Runs pooled under one label with different commands are said so: their mean is of
    // different jobs (a new user's two traces, both "default", read as one job's repeats).
    std::vector<std::string> commands;
    for (const auto& run : r.runs) {
        if (std::ranges::find(commands, run.run.command) == commands.end()) {
            commands.push_back(run.run.command);
        }
    }
    std::string command = one_line(first.run.command, 120);
    if (commands.size() > 1) {
        command = fmt::format("{} different commands pooled under one label: {}, {}{}",
                              commands.size(), one_line(commands[0], 60), one_line(commands[1], 60),
                              commands.size() > 2 ? ", …" : "");
    }
    out += fmt::format("{}  ({}; {})\n", one_line(name, 80), runs_text(r), command);
    row(out, u,
        {"  node", r.node_energy_j, r.node_avg_w, runtime_pm(r.runtime_s), r.node_peak_w,
         mean_provenance(first.node, r.node_energy_j, r.runs.size())});
    part_rows(out, u, r, r, "");
    other_rows(out, u, r);
    phase_rows(out, u, r);
}

} // namespace

// "3 runs; 1 left out: run 2 failed (exit status 1)", "1 run, killed (SIGKILL)".
std::string runs_text(const RepeatSummary& r) {
    const auto n = r.runs.size();
    std::string s = fmt::format("{} run{}", n, n == 1 ? "" : "s");
    if (r.all_failed) {
        s += n == 1 ? ", " + outcome_text(r.runs.front().run) : ", every one failed";
    }
    if (!r.left_out.empty()) {
        s += fmt::format("; {} left out:", r.left_out.size());
        for (const auto& run : r.left_out) {
            s += fmt::format(" run {} {},", run.run.repeat, outcome_text(run.run));
        }
        s.pop_back();
    }
    return s;
}

std::string pm(const Stat& s, double scale, int digits) {
    if (s.n > 1) {
        return fmt::format("{:.{}f} ± {:.{}f}", s.mean * scale, digits, s.std * scale, digits);
    }
    return fmt::format("{:.{}f}", s.mean * scale, digits);
}

std::string power_text(double watts) {
    if (std::abs(watts) >= 1000) {
        auto kw = fmt::format("{:.2f}", watts * 1e-3); // "8.40" -> "8.4", "8.43" stays
        if (kw.back() == '0') {
            kw.pop_back();
        }
        return kw + " kW";
    }
    return fmt::format("{:.1f} W", watts);
}

std::string provenance_text(const Item& item) {
    std::string prov{to_string(item.provenance)};
    if (item.backend == "jouleprofd") {
        prov += " (via jouleprofd)";
    } else if (item.backend == "estimate") {
        prov += " (model)"; // "estimated (estimate)" said it twice: docs/cpu-models.md
    } else if (!item.backend.empty()) {
        prov += " (" + item.backend + ")";
    }
    if (item.lower_bound) {
        prov += ", lower bound";
    }
    if (item.lost_at_s && *item.lost_at_s <= 0) {
        prov += ", lost: no reading after the start";
    } else if (item.lost_at_s) {
        prov += fmt::format(", lost after {:.1f} s", *item.lost_at_s);
    }
    if (item.never_changed) {
        prov += ", never changed";
    }
    if (item.bound) {
        prov += bound_text(*item.bound, item.energy_j);
    }
    return prov;
}

std::string assumptions_text(const Assumptions& a) {
    std::string out = a.peak ? "; assumes ≤ 2× the peak seen" : "";
    if (a.profile) {
        out += "; assumes the GPU's power profile between its counter's reads";
    }
    if (a.field) {
        out += "; assumes the power stayed between neighbouring readings";
    }
    if (a.windows) {
        out += "; assumes each reading's window follows the one before";
    }
    return out;
}

std::string bound_text(const Bound& b, double value) {
    const auto assumes = assumptions_text(b.assumed);
    if (b.half_width() > std::abs(value)) { // what the energy could be, and why it is that wide
        return fmt::format(", not measurable here: {} ({}{})", energy_range_text(b.low, b.high),
                           b.dominant, assumes);
    }
    if (b.half_width() > 0) {
        return fmt::format(", {} ({}{})", energy_range_text(b.low, b.high), b.dominant, assumes);
    }
    return {};
}

void add_assumptions_json(nlohmann::json& j, const std::string& prefix, const Assumptions& a) {
    j[prefix + "peak"] = a.peak;
    j[prefix + "profile"] = a.profile;
    j[prefix + "field"] = a.field;
    j[prefix + "windows"] = a.windows;
}

nlohmann::json bound_terms_json(const BoundTerms& t) {
    return {
        {"quantum", t.quantum},        {"edge_staleness", t.lag},  {"gap_between_readings", t.gap},
        {"counter_jump", t.jump},      {"idle_crossing", t.knee},  {"shared_gpu", t.shared},
        {"between_readings", t.field}, {"ambiguous_wrap", t.wrap}, {"read_time", t.read}};
}

void add_bound_json(nlohmann::json& j, const Bound& b, double value, std::string_view figure) {
    const std::string pre{figure == "energy" ? "" : std::string{figure} + "_"};
    j[fmt::format("{}_low_j", figure)] = b.low;
    j[fmt::format("{}_high_j", figure)] = b.high;
    j[fmt::format("{}_bound_j", figure)] = b.half_width();
    j[pre + "bound_dominant"] = b.dominant;
    j[pre + "bound_terms"] = bound_terms_json(b.terms);
    add_assumptions_json(j, pre + "bound_assumes_", b.assumed);
    j[pre + "measurable"] = b.half_width() <= std::abs(value);
}

nlohmann::json stat_json(const Stat& s) {
    nlohmann::json j{{"mean", s.mean}, {"std", s.std}, {"n", s.n}};
    if (s.sensor) { // the sensors' bound on the mean, beside the runs' spread
        j["sensor_low"] = s.sensor->low;
        j["sensor_high"] = s.sensor->high;
        j["sensor_bound"] = s.sensor->half_width();
        j["bound_dominant"] = s.sensor->dominant;
        j["sensor_terms"] = bound_terms_json(s.sensor->terms);
    }
    return j;
}

std::string format_text(const std::vector<RepeatSummary>& summaries, const FormatOptions& options) {
    std::string table;
    std::string details;
    double largest = 0;
    for (const auto& r : summaries) {
        largest = std::max(largest, r.runs.empty() ? 0.0 : r.node_energy_j.mean);
    }
    const auto u = energy_unit(largest);
    for (const auto& r : summaries) {
        if (r.runs.empty()) {
            continue;
        }
        const auto name = group_name(r, summaries); // "s2:small" beside "s:small" (--by-trace)
        group_rows(table, u, r, name);
        details += (details.empty() ? "" : "\n") + name + ":\n" + format_details(r, options);
    }
    if (table.empty()) {
        return "no measured runs\n";
    }
    std::string out =
        fmt::format(fmt::runtime(k_row), "label / item", fmt::format("Consumption [{}]", u.name),
                    "Average power [W]", "Runtime", "Peak power [W]", "Provenance");
    out += table;
    out += "(mean ± sample std over repeats; runtime hh:mm:ss, in seconds under a minute; parts "
           "indented under the node)\n\n";
    return out + details;
}

std::string format_text(const std::vector<RepeatSummary>& summaries, const NodeFacts& facts) {
    return format_text(summaries, FormatOptions{{}, facts.rated_watts});
}

nlohmann::json to_json(const std::vector<RepeatSummary>& summaries, const NodeFacts& facts) {
    return to_json(summaries, FormatOptions{{}, facts.rated_watts});
}

} // namespace jp::report
