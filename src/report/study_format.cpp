// SPDX-License-Identifier: BSD-3-Clause
// The study's table as text (Tables 2/3 of Caspart et al.) and as JSON.
#include "core/duration.hpp"
#include "report/format.hpp"
#include "report/study.hpp"
#include "report/units.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace jp::report {
namespace {

using Cells = std::vector<std::string>;

// Display width of UTF-8 text ("±" and "×" are one column each).
std::size_t width(const std::string& s) {
    return static_cast<std::size_t>(std::ranges::count_if(
        s, [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Columns padded to their widest cell; `right` columns are right-aligned.
std::string render(const std::vector<Cells>& lines, const std::vector<bool>& right) {
    std::vector<std::size_t> w(right.size(), 0);
    for (const auto& line : lines) {
        for (std::size_t c = 0; c < line.size(); ++c) {
            w[c] = std::max(w[c], width(line[c]));
        }
    }
    std::string out;
    for (const auto& line : lines) {
        std::string text;
        for (std::size_t c = 0; c < line.size(); ++c) {
            const std::string pad(w[c] - width(line[c]), ' ');
            text += (c == 0 ? "" : "  ") + (right[c] ? pad + line[c] : line[c] + pad);
        }
        text.erase(text.find_last_not_of(' ') + 1);
        out += text + "\n";
    }
    return out;
}

struct Layout {
    bool settings = false;
    bool sensor = false; // some row's consumption has the sensors' bound
    bool ratios = false;
    std::vector<std::string> shares; // share kinds present in any row
    Basis basis;     // some row's node figures come from a model, or are the sum of its parts only
    EnergyUnit unit; // of the largest row's energy
};

// How a row's node figures were obtained, over all its measured runs.
Basis basis_of(const StudyRow& r) {
    Basis b;
    for (const auto& run : r.ok ? r.ok->runs : std::vector<RunSummary>{}) {
        b |= basis_of(run.node);
    }
    return b;
}

Layout layout_of(const StudyTable& t) {
    Layout l;
    double largest = 0;
    for (const auto& r : t.rows) {
        largest = std::max(largest, r.ok ? r.ok->job_or_node_j().mean : 0.0);
        l.sensor = l.sensor || (r.ok && r.ok->job_or_node_j().sensor);
        l.basis |= basis_of(r);
        l.settings = l.settings || !r.key.setting.empty();
        l.ratios = l.ratios || r.energy_ratio.has_value();
        for (const auto& s : r.shares) {
            if (std::ranges::find(l.shares, s.name) == l.shares.end()) {
                l.shares.push_back(s.name);
            }
        }
    }
    std::ranges::sort(l.shares, {}, [](const std::string& s) {
        constexpr std::string_view k_order[] = {"cpu", "dram", "gpu", "other", "rest"};
        return std::ranges::find(k_order, s) - std::begin(k_order);
    });
    l.unit = energy_unit(largest);
    return l;
}

std::string status_text(const StudyRow& r) {
    if (!r.warmup_failures.empty()) {
        return "warm-up " + exit_text(r.warmup_failures.front());
    }
    if (r.failures.empty()) {
        return "ok";
    }
    return fmt::format("{} ({} of {} runs)", exit_text(r.failures.front()), r.failures.size(),
                       r.runs);
}

// Consumption, average power, runtime, ratio and shares of a row or a phase.
void add_figures(Cells& cells,
                 const FigureStats& f,
                 const std::vector<StudyShare>& shares,
                 const std::optional<double>& ratio,
                 const Layout& l,
                 Basis b) {
    cells.push_back(b.mark(energy_pm(f.job_or_node_j(), l.unit)));
    if (l.sensor) {
        cells.push_back(sensor_pm(f.job_or_node_j(), l.unit));
    }
    cells.push_back(b.mark(pm(f.job_or_node_w(), 1, 1)));
    cells.push_back(runtime_pm(f.runtime_s));
    if (l.ratios) {
        cells.push_back(ratio ? fmt::format("{:.3f}", *ratio) : "");
    }
    for (const auto& name : l.shares) {
        const auto it = std::ranges::find(shares, name, &StudyShare::name);
        cells.push_back(it == shares.end() ? "-" : fmt::format("{:.0f} %", it->fraction * 100));
    }
}

std::string to_upper(std::string s) {
    std::ranges::transform(s, s.begin(), [](char c) {
        return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    });
    return s;
}

Cells header(const Layout& l) {
    Cells h{"workload", "mode", "node type"};
    if (l.settings) {
        h.emplace_back("setting");
    }
    h.emplace_back("runs");
    h.push_back(fmt::format("Consumption [{}]", l.unit.name));
    if (l.sensor) {
        h.emplace_back("± sensors");
    }
    h.emplace_back("Average power [W]");
    h.emplace_back("Runtime");
    if (l.ratios) {
        h.emplace_back("× energy");
    }
    for (const auto& s : l.shares) {
        h.push_back(s == "other" || s == "rest" ? s : to_upper(s)); // CPU, DRAM, GPU
    }
    h.emplace_back("status");
    return h;
}

void add_rows(std::vector<Cells>& lines, const StudyRow& r, const Layout& l) {
    Cells cells{r.key.workload, r.key.mode, r.node_type};
    if (l.settings) {
        cells.push_back(r.key.setting);
    }
    cells.push_back(fmt::format("{}", r.runs));
    if (r.ok) {
        add_figures(cells, *r.ok, r.shares, r.energy_ratio, l, basis_of(r));
    } else {
        cells.resize(cells.size() + 3 + (l.sensor ? 1 : 0) + (l.ratios ? 1 : 0) + l.shares.size(),
                     "-");
    }
    cells.push_back(status_text(r));
    lines.push_back(std::move(cells));
    for (const auto& p : r.ok ? r.ok->phases : std::vector<PhaseStats>{}) {
        Cells phase{"  phase " + p.name, "", ""};
        if (l.settings) {
            phase.emplace_back("");
        }
        phase.push_back(fmt::format("{}", p.runs));
        add_figures(phase, p, energy_shares(p, *r.ok), std::nullopt, l, basis_of(r));
        phase.push_back(p.occurrences > p.runs ? fmt::format("{} occurrences", p.occurrences)
                                               : std::string{});
        lines.push_back(std::move(phase));
    }
}

nlohmann::json shares_json(const std::vector<StudyShare>& shares) {
    auto j = nlohmann::json::object();
    for (const auto& s : shares) {
        j[s.name] = s.fraction;
    }
    return j;
}

nlohmann::json figures_json(const FigureStats& f, const std::vector<StudyShare>& shares) {
    return {{"node_energy_j", stat_json(f.node_energy_j)},
            {"job_energy_j", f.job_energy_j ? stat_json(*f.job_energy_j) : nlohmann::json(nullptr)},
            {"node_avg_w", stat_json(f.node_avg_w)},
            {"job_avg_w", f.job_avg_w ? stat_json(*f.job_avg_w) : nlohmann::json(nullptr)},
            {"node_peak_w", stat_json(f.node_peak_w)},
            {"runtime_s", stat_json(f.runtime_s)},
            {"shares", shares_json(shares)}};
}

nlohmann::json row_json(const StudyRow& r) {
    nlohmann::json j{{"workload", r.key.workload},
                     {"mode", r.key.mode},
                     {"setting", r.key.setting},
                     {"node_type", r.node_type},
                     {"label", study_label(r.key)},
                     {"runs", r.runs},
                     {"failures", r.failures},
                     {"warmup_failures", r.warmup_failures},
                     {"ok", r.failures.empty() && r.warmup_failures.empty()}};
    const auto opt = [](const std::optional<double>& v) {
        return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    };
    j["energy_ratio"] = opt(r.energy_ratio);
    j["runtime_ratio"] = opt(r.runtime_ratio);
    if (!r.ok) {
        return j;
    }
    j.update(figures_json(*r.ok, r.shares));
    j["ok_runs"] = r.ok->runs.size();
    const auto b = basis_of(r);
    j["provenance"] =
        to_string(b.estimated ? Provenance::estimated : r.ok->runs.front().node.provenance);
    j["lower_bound"] = b.lower_bound;
    j["dynamic_energy_j"] =
        r.ok->dynamic_energy_j ? stat_json(*r.ok->dynamic_energy_j) : nlohmann::json(nullptr);
    j["phases"] = nlohmann::json::array();
    for (const auto& p : r.ok->phases) {
        auto pj = figures_json(p, energy_shares(p, *r.ok));
        pj.update({{"name", p.name}, {"runs", p.runs}, {"occurrences", p.occurrences}});
        j["phases"].push_back(pj);
    }
    return j;
}

} // namespace

std::string format_study(const StudyTable& t) {
    if (t.rows.empty()) {
        return "no measured runs\n";
    }
    const auto l = layout_of(t);
    std::vector<Cells> lines{header(l)};
    for (const auto& r : t.rows) {
        add_rows(lines, r, l);
    }
    std::vector<bool> right(lines.front().size(), false);
    const std::size_t first_number = l.settings ? 4 : 3;
    std::fill(right.begin() + static_cast<std::ptrdiff_t>(first_number), right.end() - 1, true);
    std::string out = render(lines, right);
    out += "(mean ± sample std over the measured runs: warm-ups and failed runs left out; "
           "runtime hh:mm:ss, in seconds under a minute";
    out += !l.ratios ? ""
           : t.node_types.size() > 1
               ? "; × energy: to the first node type's (same workload, "
                 "mode and setting)"
               : "; × energy: to the first setting's (same workload and mode)";
    out += l.shares.empty() ? "" : "; CPU, DRAM, GPU, other, rest: shares of the node's energy";
    out += ")\n";
    if (l.sensor) {
        out += "± sensors: half the sensors' bound on the mean consumption, a guarantee from "
               "their own limits, not a spread (docs/uncertainty.md; its ends in --json); n/m: "
               "wider than the figure, not measurable at their resolution; -: no bound (a power "
               "reading or a model)\n";
    }
    for (const auto& line : l.basis.legend()) {
        out += line + "\n";
    }
    std::vector<std::string> attributed;
    for (const auto& r : t.rows) {
        if (r.ok && r.ok->job_energy_j) {
            attributed.push_back(r.ok->label);
        }
    }
    if (!attributed.empty()) {
        out += fmt::format("Consumption and Average power are the job's share of its shared node "
                           "(docs/attribution.md) for {} of the {} rows{}; the node's are "
                           "node_energy_j and node_avg_w in --json, and the HTML gives both. The "
                           "parts' % columns stay shares of the node's energy\n",
                           attributed.size(), t.rows.size(),
                           attributed.size() == t.rows.size() ? " (all)" : "");
    }
    out += "results:";
    for (const auto& trace : t.traces) {
        out += " " + trace;
    }
    return out + "\n";
}

nlohmann::json study_json(const StudyTable& t) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : t.rows) {
        rows.push_back(row_json(r));
    }
    return {{"node_types", t.node_types}, {"traces", t.traces}, {"rows", rows}};
}

} // namespace jp::report
