#include "report/format.hpp"

#include "core/duration.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace jp::report {
namespace {

std::string pm(const Stat& s, double scale, int digits) {
    if (s.n > 1) {
        return fmt::format("{:.{}f} ± {:.{}f}", s.mean * scale, digits, s.std * scale, digits);
    }
    return fmt::format("{:.{}f}", s.mean * scale, digits);
}

std::string item_line(const std::string& name, const Stat& e, const Stat& w, const Item& first) {
    std::string prov{to_string(first.provenance)};
    if (!first.backend.empty()) {
        prov += " (" + first.backend + ")";
    }
    std::string util;
    if (first.mean_util) {
        util = fmt::format("  util {:.0f} %", *first.mean_util);
    }
    return fmt::format("  {:<20} {:>16} kJ  avg {:>14} W  {}{}\n", name, pm(e, 1e-3, 3),
                       pm(w, 1, 1), prov, util);
}

const Item* find_item(const RunSummary& run, const std::string& name) {
    if (name == "rest") {
        return run.rest ? &*run.rest : nullptr;
    }
    for (const auto& p : run.parts) {
        if (p.name == name) {
            return &p;
        }
    }
    return nullptr;
}

void format_one(std::string& out, const RepeatSummary& r, const NodeFacts& facts) {
    const auto& first = r.runs.front();
    out += fmt::format("jouleprof: {}  [{}]  {} run{}\n", first.run.command, r.label, r.runs.size(),
                       r.runs.size() == 1 ? "" : "s (mean ± sample std)");
    out += fmt::format("  {:<20} {:>16}     ({} s)\n", "runtime", format_hms(r.runtime_s.mean),
                       pm(r.runtime_s, 1, 3));
    std::string peak;
    if (r.node_peak_w.n > 0) {
        peak = fmt::format("  peak {} W", pm(r.node_peak_w, 1, 1));
        if (facts.rated_watts) {
            peak += fmt::format(" = {:.0f} % of rated {:.0f} W",
                                100 * r.node_peak_w.mean / *facts.rated_watts, *facts.rated_watts);
        }
    }
    out += fmt::format("  {:<20} {:>16} kJ  avg {:>14} W{}  {}\n", "node",
                       pm(r.node_energy_j, 1e-3, 3), pm(r.node_avg_w, 1, 1), peak,
                       to_string(first.node.provenance));
    out += fmt::format("  {:<20} {}\n", "", first.node_basis);
    for (std::size_t i = 0; i < r.part_energy_j.size(); ++i) {
        const auto& name = r.part_energy_j[i].first;
        if (const Item* it = find_item(first, name)) {
            out += item_line(name, r.part_energy_j[i].second, r.part_avg_w[i].second, *it);
        }
    }
    for (const auto& o : first.others) {
        out += fmt::format("  {:<20} {:>16} kJ  (not summed: within {})\n", o.name,
                           fmt::format("{:.3f}", o.energy_j * 1e-3),
                           o.parent.empty() ? std::string{"another channel"} : o.parent);
    }
    if (r.idle_w && r.dynamic_energy_j) {
        out += fmt::format(
            "  idle baseline {:.1f} W -> dynamic energy {} kJ (node − idle × runtime)\n", *r.idle_w,
            pm(*r.dynamic_energy_j, 1e-3, 3));
    }
    const double total_rt = r.runtime_s.mean * static_cast<double>(r.runs.size());
    out += fmt::format("  monitor overhead: {:.3f} s CPU over {:.1f} s ({:.2f} % of one core)\n",
                       r.monitor_cpu_s, total_rt,
                       total_rt > 0 ? 100 * r.monitor_cpu_s / total_rt : 0.0);
    std::vector<std::string> notes; // said once, not once per run
    for (const auto& run : r.runs) {
        for (const auto& n : run.notes) {
            if (std::ranges::find(notes, n) == notes.end()) {
                notes.push_back(n);
            }
        }
    }
    for (const auto& n : notes) {
        out += "  note: " + n + "\n";
    }
    for (const auto& run : r.runs) {
        for (const auto& e : run.events) {
            out += fmt::format("  event (run {}): {}: {}\n", run.run.repeat, e.kind, e.detail);
        }
        if (run.run.signal) {
            out +=
                fmt::format("  run {} was killed by signal {}\n", run.run.repeat, *run.run.signal);
        }
    }
}

nlohmann::json stat_json(const Stat& s) {
    return {{"mean", s.mean}, {"std", s.std}, {"n", s.n}};
}

nlohmann::json item_json(const Item& i) {
    nlohmann::json j{{"name", i.name},
                     {"domain", to_string(i.domain)},
                     {"provenance", to_string(i.provenance)},
                     {"backend", i.backend},
                     {"energy_j", i.energy_j},
                     {"avg_w", i.avg_w},
                     {"counted", i.counted},
                     {"parent", i.parent}};
    j["peak_w"] = i.peak_w ? nlohmann::json(*i.peak_w) : nlohmann::json(nullptr);
    if (i.mean_util) {
        j["mean_util_percent"] = *i.mean_util;
    }
    return j;
}

nlohmann::json run_json(const RunSummary& s) {
    nlohmann::json j{{"id", s.run.id},
                     {"repeat", s.run.repeat},
                     {"runtime_s", s.runtime_s},
                     {"complete", s.complete},
                     {"node", item_json(s.node)},
                     {"node_basis", s.node_basis},
                     {"monitor_cpu_s", s.run.monitor_cpu_s},
                     {"notes", s.notes}};
    j["exit_code"] = s.run.exit_code ? nlohmann::json(*s.run.exit_code) : nlohmann::json(nullptr);
    j["signal"] = s.run.signal ? nlohmann::json(*s.run.signal) : nlohmann::json(nullptr);
    j["parts"] = nlohmann::json::array();
    for (const auto& p : s.parts) {
        j["parts"].push_back(item_json(p));
    }
    j["not_summed"] = nlohmann::json::array();
    for (const auto& p : s.others) {
        j["not_summed"].push_back(item_json(p));
    }
    j["rest"] = s.rest ? item_json(*s.rest) : nlohmann::json(nullptr);
    j["events"] = nlohmann::json::array();
    for (const auto& e : s.events) {
        j["events"].push_back({{"kind", e.kind}, {"detail", e.detail}, {"t_ns", e.t_ns}});
    }
    return j;
}

} // namespace

std::string format_text(const std::vector<RepeatSummary>& summaries, const NodeFacts& facts) {
    std::string out;
    for (const auto& r : summaries) {
        if (!r.runs.empty()) {
            format_one(out, r, facts);
        }
    }
    return out;
}

nlohmann::json to_json(const std::vector<RepeatSummary>& summaries, const NodeFacts& facts) {
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& r : summaries) {
        nlohmann::json g{{"label", r.label},
                         {"runtime_s", stat_json(r.runtime_s)},
                         {"node_energy_j", stat_json(r.node_energy_j)},
                         {"node_avg_w", stat_json(r.node_avg_w)},
                         {"node_peak_w", stat_json(r.node_peak_w)},
                         {"monitor_cpu_s", r.monitor_cpu_s}};
        nlohmann::json parts = nlohmann::json::object();
        for (std::size_t i = 0; i < r.part_energy_j.size(); ++i) {
            parts[r.part_energy_j[i].first] = {{"energy_j", stat_json(r.part_energy_j[i].second)},
                                               {"avg_w", stat_json(r.part_avg_w[i].second)}};
        }
        g["parts"] = parts;
        g["idle_w"] = r.idle_w ? nlohmann::json(*r.idle_w) : nlohmann::json(nullptr);
        g["dynamic_energy_j"] =
            r.dynamic_energy_j ? stat_json(*r.dynamic_energy_j) : nlohmann::json(nullptr);
        g["runs"] = nlohmann::json::array();
        for (const auto& run : r.runs) {
            g["runs"].push_back(run_json(run));
        }
        groups.push_back(g);
    }
    nlohmann::json j{{"groups", groups}};
    j["rated_watts"] =
        facts.rated_watts ? nlohmann::json(*facts.rated_watts) : nlohmann::json(nullptr);
    return j;
}

} // namespace jp::report
