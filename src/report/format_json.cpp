// SPDX-License-Identifier: BSD-3-Clause
#include "report/carbon.hpp"
#include "report/format.hpp"

#include <cmath>
#include <map>

namespace jp::report {
namespace {

using nlohmann::json;

// "NAME_low_w"/"NAME_high_w": where the sensors' bounds put a power figure (null: no bound);
// what it rests on is added to `assumed`.
void add_range(json& j,
               const std::string& name,
               const std::optional<PowerRange>& r,
               Assumptions& assumed) {
    j[name + "_low_w"] = r ? json(r->low_w) : json(nullptr);
    j[name + "_high_w"] = r ? json(r->high_w) : json(nullptr);
    if (r) {
        assumed |= r->assumed;
    }
}

// The sensors' ranges of the peak, the moving peaks and the percentiles, as a run's
// Distribution and a group's PowerStats both hold them, and what any of them rests on
// ("range_assumes_peak", …: report/assumptions.hpp).
template <class Power> void add_distribution_ranges(json& j, const Power& p) {
    Assumptions assumed;
    add_range(j, "peak", p.peak_bound, assumed);
    add_range(j, "peak_1s", p.peak_1s_bound, assumed);
    add_range(j, "peak_60s", p.peak_60s_bound, assumed);
    add_range(j, "p50", p.p50_bound, assumed);
    add_range(j, "p95", p.p95_bound, assumed);
    add_range(j, "p99", p.p99_bound, assumed);
    add_assumptions_json(j, "range_assumes_", assumed);
}

json opt(const std::optional<double>& v) {
    return v ? json(*v) : json(nullptr);
}

json share_json(const JobShare& s) {
    json j{
        {"job_j", s.job_j()},   {"idle_j", s.job_idle_j},           {"dynamic_j", s.job_dynamic_j},
        {"node_j", s.node_j()}, {"unallocated_j", s.unallocated_j}, {"other_j", s.other_j}};
    if (s.job_bound) { // the sensors' bound on the job's share (report/share_bound.hpp)
        add_bound_json(j, *s.job_bound, s.job_j(), "job");
    }
    return j;
}

// docs/attribution.md: the job's share of the node, per part and in all.
json attribution_json(const Attribution& a) {
    json j = share_json(a.node);
    j.update({{"exclusive", a.exclusive},
              {"method", a.method},
              {"job_cpu", a.job_cpu},
              {"idle_source", a.idle_source.empty() ? json(nullptr) : json(a.idle_source)},
              {"job_cpu_s", a.job_cpu_s},
              {"node_busy_cpu_s", a.node_busy_s},
              {"given_cpus", a.given_cpus},
              {"node_cpus", a.node_cpus},
              {"other_jobs", a.other_jobs ? json(*a.other_jobs) : json(nullptr)},
              {"other_jobs_at_once", a.other_jobs ? json(a.jobs_at_once) : json(nullptr)},
              {"notes", a.notes}});
    j["parts"] = json::array();
    for (const auto& p : a.parts) {
        json pj = share_json(p.share);
        pj.update({{"name", p.name}, {"idle_w", opt(p.idle_w)}, {"by", p.by}});
        j["parts"].push_back(std::move(pj));
    }
    return j;
}

json item_json(const Item& i) {
    json j{{"name", i.name},
           {"domain", to_string(i.domain)},
           {"provenance", to_string(i.provenance)},
           {"backend", i.backend},
           {"energy_j", i.energy_j},
           {"avg_w", i.avg_w},
           {"counted", i.counted},
           {"parent", i.parent}};
    j["peak_w"] = opt(i.peak_w);
    if (i.peak_bound) { // an energy counter's: where the truth's peak at its resolution lies
        Assumptions assumed;
        add_range(j, "peak", i.peak_bound, assumed);
        add_assumptions_json(j, "peak_assumes_", assumed);
    }
    j["lower_bound"] = i.lower_bound;
    if (i.bound) { // docs/uncertainty.md
        add_bound_json(j, *i.bound, i.energy_j, "energy");
    }
    if (i.lost_at_s) {
        j["lost_at_s"] = *i.lost_at_s;
    }
    if (i.never_changed) {
        j["never_changed"] = true;
    }
    if (i.mean_util) {
        j["mean_util_percent"] = *i.mean_util;
    }
    if (i.share) {
        j["share"] = share_json(*i.share);
    }
    return j;
}

json figures_json(const Figures& f) {
    json j{{"runtime_s", f.runtime_s}, {"node", item_json(f.node)}};
    j["parts"] = json::array();
    for (const auto& p : f.parts) {
        j["parts"].push_back(item_json(p));
    }
    j["not_summed"] = json::array();
    for (const auto& p : f.others) {
        j["not_summed"].push_back(item_json(p));
    }
    j["rest"] = f.rest ? item_json(*f.rest) : json(nullptr);
    return j;
}

json phase_json(const PhaseSummary& p, std::int64_t run_start) {
    json j = figures_json(p);
    j["name"] = p.name;
    j["begin_s"] = static_cast<double>(p.begin_ns - run_start) * 1e-9; // since the run began
    j["end_s"] = static_cast<double>(p.end_ns - run_start) * 1e-9;
    j["open_at_end"] = p.open_at_end;
    j["occurrences"] = p.occurrences;
    return j;
}

json distribution_figures(const Distribution& d, std::int64_t step_ns) {
    return {{"step_s", static_cast<double>(step_ns) * 1e-9},
            {"mean_w", d.mean_w},
            {"peak_w", d.peak_w},
            {"peak_1s_w", opt(d.peak_1s_w)},
            {"peak_60s_w", opt(d.peak_60s_w)},
            {"p50_w", d.p50_w},
            {"p95_w", d.p95_w},
            {"p99_w", d.p99_w},
            {"threshold_w", opt(d.threshold_w)},
            {"seconds_above", d.seconds_above}};
}

json distribution_json(const Distribution& d, std::int64_t step_ns) {
    json j = distribution_figures(d, step_ns);
    add_distribution_ranges(j, d);
    return j;
}

json idle_json(const IdleDevice& d) {
    return {{"name", d.name},
            {"energy_j", d.energy_j},
            {"share_of_node", d.share},
            {"mean_util_percent", d.mean_util},
            {"provenance", to_string(d.provenance)}};
}

} // namespace

namespace {

// How many times each name occurs.
template <class T> std::map<std::string, std::size_t> counts_by_name(const std::vector<T>& items) {
    std::map<std::string, std::size_t> out;
    for (const auto& i : items) {
        ++out[i.name];
    }
    return out;
}

json not_listed(const std::map<std::string, std::size_t>& counts, bool detail) {
    json out = json::array();
    for (const auto& [name, n] : counts) {
        if (!detail && n > k_occurrences_listed) {
            out.push_back({{"name", name}, {"occurrences", n}});
        }
    }
    return out;
}

} // namespace

json run_to_json(const RunSummary& run, bool phase_detail) {
    const auto& s = run;
    json j = figures_json(s);
    j.update({{"id", s.run.id},
              {"label", s.run.label},
              {"repeat", s.run.repeat},
              {"trace", s.trace},
              {"complete", s.complete},
              {"node_basis", s.node_basis},
              {"monitor_cpu_s", s.run.monitor_cpu_s},
              {"notes", s.notes}});
    j["exit_code"] = s.run.exit_code ? json(*s.run.exit_code) : json(nullptr);
    j["signal"] = s.run.signal ? json(*s.run.signal) : json(nullptr);
    j["status"] = s.run.status;
    j["failed"] = run_failed(s.run);
    j["events"] = json::array();
    for (const auto& e : s.events) {
        j["events"].push_back({{"kind", e.kind}, {"detail", e.detail}, {"t_ns", e.t_ns}});
    }
    const auto phase_counts = counts_by_name(s.phases);
    j["phases"] = json::array();
    for (const auto& p : s.phases) {
        if (phase_detail || phase_counts.at(p.name) <= k_occurrences_listed) {
            j["phases"].push_back(phase_json(p, s.run.start_ns));
        }
    }
    j["phases_not_listed"] = not_listed(phase_counts, phase_detail);
    j["phase_totals"] = json::array();
    for (const auto& p : s.phase_totals) {
        j["phase_totals"].push_back(phase_json(p, s.run.start_ns));
    }
    const auto point_counts = counts_by_name(s.points);
    j["points"] = json::array();
    for (const auto& m : s.points) {
        if (phase_detail || point_counts.at(m.name) <= k_occurrences_listed) {
            j["points"].push_back(
                {{"name", m.name}, {"t_s", static_cast<double>(m.t_ns - s.run.start_ns) * 1e-9}});
        }
    }
    j["points_not_listed"] = not_listed(point_counts, phase_detail);
    j["power"] = s.power ? distribution_json(*s.power, s.power_step_ns) : json(nullptr);
    j["idle_accelerators"] = json::array();
    for (const auto& d : s.idle) {
        j["idle_accelerators"].push_back(idle_json(d));
    }
    j["attribution"] = s.attribution ? attribution_json(*s.attribution) : json(nullptr);
    j["field_coverage"] = json::array();
    for (const auto& c : s.coverage) {
        j["field_coverage"].push_back(
            {{"counter", c.counter},
             {"field", c.field},
             {"profile", c.profile},
             {"detail", c.detail.empty() ? json(nullptr) : json(c.detail)},
             {"spans", c.spans},
             {"ratio", c.ratio},
             {"min_ratio", c.min_ratio},
             {"max_ratio", c.max_ratio}});
    }
    return j;
}

namespace {

json stats_json(const FigureStats& s) {
    json j{{"runtime_s", stat_json(s.runtime_s)},
           {"node_energy_j", stat_json(s.node_energy_j)},
           {"node_avg_w", stat_json(s.node_avg_w)},
           {"job_avg_w", s.job_avg_w ? stat_json(*s.job_avg_w) : nlohmann::json(nullptr)},
           {"node_peak_w", stat_json(s.node_peak_w)}};
    json parts = json::object();
    for (std::size_t i = 0; i < s.part_energy_j.size(); ++i) {
        parts[s.part_energy_j[i].first] = {{"energy_j", stat_json(s.part_energy_j[i].second)},
                                           {"avg_w", stat_json(s.part_avg_w[i].second)},
                                           {"peak_w", stat_json(s.part_peak_w[i].second)}};
    }
    j["parts"] = parts;
    return j;
}

json power_figures(const PowerStats& p) {
    return {{"step_s", static_cast<double>(p.step_ns) * 1e-9},
            {"peak_w", p.peak_w},
            {"peak_1s_w", opt(p.peak_1s_w)},
            {"peak_60s_w", opt(p.peak_60s_w)},
            {"mean_w", stat_json(p.mean_w)},
            {"p50_w", stat_json(p.p50_w)},
            {"p95_w", stat_json(p.p95_w)},
            {"p99_w", stat_json(p.p99_w)},
            {"threshold_w", opt(p.threshold_w)},
            {"seconds_above", stat_json(p.seconds_above)}};
}

json power_json(const PowerStats& p) {
    json j = power_figures(p);
    add_distribution_ranges(j, p);
    return j;
}

json footprint_json(const Footprint& f) {
    json j{{"node_j", f.node_j},
           {"pue", f.pue},
           {"facility_j", f.facility_j},
           {"facility_kwh", f.facility_j / k_joules_per_kwh},
           {"intensity_g_per_kwh", opt(f.intensity_g_per_kwh)},
           {"kg_co2e", opt(f.kg_co2e)},
           {"price_per_kwh", opt(f.price_per_kwh)},
           {"cost", opt(f.cost)}};
    j["currency"] = f.currency;
    j["estimated"] = f.estimated;     // node_j is an estimate
    j["lower_bound"] = f.lower_bound; // node_j is the sum of the node's parts
    // Each figure at the ends of the sensors' bound on the node's energy.
    const auto range = [&](const std::string& low, const std::string& high,
                           std::optional<double> figure) {
        if (const auto r = figure ? f.range_of(*figure) : std::nullopt) {
            j[low] = r->first;
            j[high] = r->second;
        }
    };
    range("facility_low_j", "facility_high_j", f.facility_j);
    range("kg_co2e_low", "kg_co2e_high", f.kg_co2e);
    range("cost_low", "cost_high", f.cost);
    return j;
}

json group_json(const RepeatSummary& r, const FormatOptions& options) {
    json g = stats_json(r);
    g.update({{"label", r.label}, {"traces", r.traces}, {"monitor_cpu_s", r.monitor_cpu_s}});
    g["idle_w"] = opt(r.idle_w);
    g["dynamic_energy_j"] = r.dynamic_energy_j ? stat_json(*r.dynamic_energy_j) : json(nullptr);
    g["phases"] = json::array();
    for (const auto& p : r.phases) {
        json pj = stats_json(p);
        pj.update({{"name", p.name}, {"runs", p.runs}, {"occurrences", p.occurrences}});
        g["phases"].push_back(pj);
    }
    g["power"] = r.power ? power_json(*r.power) : json(nullptr);
    auto rating = r.rating;
    if (!rating && options.rated_watts) {
        rating = Rating{*options.rated_watts, "config"};
    }
    g["rated"] =
        rating ? json{{"watts", rating->watts}, {"source", rating->source}} : json(nullptr);
    g["idle_accelerators"] = json::array();
    for (const auto& d : r.idle) {
        g["idle_accelerators"].push_back({{"name", d.name},
                                          {"runs", d.runs},
                                          {"of", d.of},
                                          {"energy_j", stat_json(d.energy_j)},
                                          {"share_of_node", stat_json(d.share)},
                                          {"mean_util_percent", stat_json(d.mean_util)}});
    }
    const auto f = group_footprint(r, options.carbon);
    g["footprint"] = f ? footprint_json(*f) : json(nullptr);
    g["runs"] = json::array();
    for (const auto& run : r.runs) {
        g["runs"].push_back(run_to_json(run, options.phase_detail));
    }
    g["all_failed"] = r.all_failed;
    g["left_out"] = json::array();
    for (const auto& run : r.left_out) {
        g["left_out"].push_back(run_to_json(run, options.phase_detail));
    }
    return g;
}

} // namespace

json to_json(const std::vector<RepeatSummary>& summaries, const FormatOptions& options) {
    json groups = json::array();
    std::optional<double> rated = options.rated_watts;
    for (const auto& r : summaries) {
        groups.push_back(group_json(r, options));
        if (!rated && r.rating && r.rating->source == "config") {
            rated = r.rating->watts;
        }
    }
    json j{{"groups", groups}};
    j["rated_watts"] = opt(rated);
    return j;
}

nlohmann::json inputs_json(std::span<const TraceSelection> selections) {
    std::vector<std::string> traces;
    json j{{"selections", json::array()}};
    for (const auto& s : selections) {
        if (std::ranges::find(traces, s.trace.string()) == traces.end()) {
            traces.push_back(s.trace.string());
        }
        j["selections"].push_back(
            {{"trace", s.trace.string()}, {"label", s.label ? json(*s.label) : json(nullptr)}});
    }
    j["traces"] = traces;
    if (traces.size() == 1) {
        j["trace"] = traces.front();
    }
    return j;
}

} // namespace jp::report
