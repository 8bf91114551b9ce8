#include "report/summary.hpp"

#include "report/series.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <numeric>

namespace jp::report {
namespace {

// Windows shorter than this share of the typical interval are quantisation
// noise (an edge read right after a tick) and are left out of peak power.
constexpr double k_min_window_share = 0.5;

std::optional<double>
peak_of(const Channel& c, const std::vector<TimedValue>& p, std::int64_t t0, std::int64_t t1) {
    std::optional<double> peak;
    if (c.quantity == Quantity::power) {
        for (const auto& s : p) {
            if (s.t_ns >= t0 && s.t_ns <= t1) {
                peak = std::max(peak.value_or(s.value), s.value);
            }
        }
        return peak;
    }
    const auto min_window =
        static_cast<std::int64_t>(static_cast<double>(median_step(p)) * k_min_window_share);
    std::size_t prev = 0;
    for (std::size_t i = 1; i < p.size(); ++i) {
        if (p[i].t_ns - p[prev].t_ns < min_window) {
            continue;
        }
        const double dt = static_cast<double>(p[i].t_ns - p[prev].t_ns) * 1e-9;
        const double w = (p[i].value - p[prev].value) / dt;
        peak = std::max(peak.value_or(w), w);
        prev = i;
    }
    return peak;
}

Item item_of(const Channel& c,
             const std::vector<TimedValue>& p,
             std::int64_t t0,
             std::int64_t t1,
             double runtime) {
    Item it;
    it.name = c.name;
    it.domain = c.domain;
    it.provenance = c.provenance;
    it.backend = c.backend;
    it.counted = c.counted;
    it.parent = c.parent;
    if (!p.empty()) {
        it.energy_j = c.quantity == Quantity::energy ? interpolate(p, t1) - interpolate(p, t0)
                                                     : trapezoid_joules(p, t0, t1);
    }
    it.avg_w = runtime > 0 ? it.energy_j / runtime : 0;
    it.peak_w = peak_of(c, p, t0, t1);
    return it;
}

// Node power on a common grid: the sum of the parts' mean power per window.
std::optional<double> summed_peak(const std::vector<ChannelData>& parts,
                                  std::int64_t t0,
                                  std::int64_t t1,
                                  double rest_w) {
    const auto g = grid_of(parts, t0, t1, rest_w);
    if (g.watts.empty()) {
        return std::nullopt;
    }
    return *std::ranges::max_element(g.watts);
}

std::optional<double> meta_double(const trace::Reader& r, const std::string& key) {
    auto it = r.meta().find(key);
    if (it == r.meta().end()) {
        return std::nullopt;
    }
    try {
        return std::stod(it->second);
    } catch (...) {
        return std::nullopt;
    }
}

Item named_item(std::string name, Provenance p, std::string backend, double energy_j) {
    Item it;
    it.name = std::move(name);
    it.provenance = p;
    it.backend = std::move(backend);
    it.energy_j = energy_j;
    return it;
}

Provenance weakest(Provenance a, Provenance b) {
    return static_cast<int>(a) > static_cast<int>(b) ? a : b;
}

} // namespace

NodeFacts node_facts(const trace::Reader& reader) {
    return {meta_double(reader, "node.rest_watts"), meta_double(reader, "node.rated_watts")};
}

Result<RunSummary> summarize_run(trace::Reader& reader, const trace::RunInfo& run) {
    RunSummary out;
    out.run = run;
    const std::int64_t t0 = run.start_ns;
    std::int64_t t1 = run.end_ns.value_or(t0);
    if (!run.end_ns) {
        out.complete = false;
        auto last = reader.last_sample_time(run.id);
        if (!last) {
            return std::unexpected(last.error());
        }
        t1 = last->value_or(t0);
        out.notes.push_back("the monitor stopped before the job ended: figures cover the run up "
                            "to its last committed sample");
    }
    out.runtime_s = static_cast<double>(t1 - t0) * 1e-9;
    const auto& channels = reader.channels();
    std::vector<std::vector<TimedValue>> series(channels.size());
    for (std::size_t i = 0; i < channels.size(); ++i) {
        auto s = reader.samples(run.id, i);
        if (!s) {
            return std::unexpected(s.error());
        }
        series[i] = std::move(s->points);
    }
    const auto facts = node_facts(reader);
    std::optional<std::size_t> node_ch;
    std::vector<ChannelData> part_data;
    std::map<std::string, double> util; // by channel-name prefix ("gpu0")
    for (std::size_t i = 0; i < channels.size(); ++i) {
        const auto& c = channels[i];
        if (c.quantity == Quantity::utilization) {
            if (!series[i].empty()) {
                util[c.name.substr(0, c.name.rfind('.'))] =
                    trapezoid_joules(series[i], t0, t1) / std::max(out.runtime_s, 1e-9);
            }
            continue;
        }
        if (c.domain == Domain::node && c.counted && !node_ch) {
            node_ch = i;
            continue;
        }
        Item it = item_of(c, series[i], t0, t1, out.runtime_s);
        if (c.counted) {
            out.parts.push_back(std::move(it));
            part_data.push_back({&c, &series[i]});
        } else {
            out.others.push_back(std::move(it));
        }
    }
    for (auto& p : out.parts) {
        if (auto u = util.find(p.name); u != util.end()) {
            p.mean_util = u->second;
        }
    }
    double parts_j = 0;
    Provenance parts_prov = Provenance::measured;
    for (const auto& p : out.parts) {
        parts_j += p.energy_j;
        parts_prov = weakest(parts_prov, p.provenance);
    }
    if (node_ch) {
        const auto& c = channels[*node_ch];
        out.node = item_of(c, series[*node_ch], t0, t1, out.runtime_s);
        out.node.name = "node";
        out.node_basis = fmt::format("measured by {} ({})", c.name, c.backend);
        if (!out.parts.empty()) {
            Item rest = named_item("rest", weakest(Provenance::derived, parts_prov), "",
                                   out.node.energy_j - parts_j);
            rest.avg_w = out.runtime_s > 0 ? rest.energy_j / out.runtime_s : 0;
            out.rest = rest;
        }
    } else {
        const double rest_w = facts.rest_watts.value_or(0);
        out.node = named_item("node", Provenance::estimated, "", parts_j);
        out.node.domain = Domain::node;
        out.node.energy_j += rest_w * out.runtime_s;
        out.node.avg_w = out.runtime_s > 0 ? out.node.energy_j / out.runtime_s : 0;
        out.node.peak_w = summed_peak(part_data, t0, t1, rest_w);
        if (facts.rest_watts) {
            out.node_basis =
                fmt::format("sum of parts + rest-of-node model {:g} W (estimated)", rest_w);
            Item rest = named_item("rest", Provenance::estimated, "model", rest_w * out.runtime_s);
            rest.avg_w = rest_w;
            out.rest = rest;
        } else {
            out.node_basis = "sum of parts only: the rest of the node is not modelled (set "
                             "[node] rest_watts in the config), so this is a lower bound";
        }
    }
    // Instantaneous peak power can never be below the mean power over the run.
    if (out.node.peak_w) {
        out.node.peak_w = std::max(*out.node.peak_w, out.node.avg_w);
    }
    for (auto* list : {&out.parts, &out.others}) {
        for (auto& it : *list) {
            if (it.peak_w) {
                it.peak_w = std::max(*it.peak_w, it.avg_w);
            }
        }
    }
    if (out.node.provenance == Provenance::estimated || parts_prov == Provenance::estimated) {
        out.notes.push_back("figures marked 'estimated' come from a model, not a measurement");
    }
    auto events = reader.events(run.id);
    if (events) {
        out.events = std::move(*events);
    }
    return out;
}

Stat stat_of(const std::vector<double>& v) {
    Stat s;
    s.n = v.size();
    if (v.empty()) {
        return s;
    }
    s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    if (v.size() > 1) {
        double ss = 0;
        for (double x : v) {
            ss += (x - s.mean) * (x - s.mean);
        }
        s.std = std::sqrt(ss / static_cast<double>(v.size() - 1));
    }
    return s;
}

} // namespace jp::report
