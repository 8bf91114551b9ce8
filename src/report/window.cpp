// SPDX-License-Identifier: BSD-3-Clause
#include "report/window.hpp"

#include "report/power_band.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <utility>

namespace jp::report {
namespace {

// The samples inside [t0, t1] with both edges interpolated.
std::vector<TimedValue> clipped(std::span<const TimedValue> p, std::int64_t t0, std::int64_t t1) {
    std::vector<TimedValue> w{{t0, interpolate(p, t0)}};
    for (const auto& s : p) {
        if (s.t_ns > t0 && s.t_ns < t1) {
            w.push_back(s);
        }
    }
    w.push_back({t1, interpolate(p, t1)});
    return w;
}

// The highest power of channel i within [t0, t1]: its highest reading for a
// power channel; for a counter, the highest mean over spans of its resolution.
// Channel i's peak over [t0, t1] at its resolution; an energy counter's grid into `grid`.
std::optional<double> peak_of(
    const RunData& d, std::size_t i, std::int64_t t0, std::int64_t t1, GridSeries* grid = nullptr) {
    const auto near = samples_around(d, i, t0, t1);
    if (near.empty() || t1 <= t0) {
        return std::nullopt;
    }
    const auto& c = (*d.channels)[i];
    if (c.quantity == Quantity::power) {
        std::optional<double> peak;
        for (const auto& s : clipped(near, t0, t1)) {
            peak = std::max(peak.value_or(s.value), s.value);
        }
        return peak;
    }
    const auto step = d.timing[i].resolution_ns > 0 ? d.timing[i].resolution_ns : t1 - t0;
    auto g = channel_grid(c, near, t0, t1, step);
    if (g.watts.empty()) {
        return std::nullopt;
    }
    const double peak = *std::ranges::max_element(g.watts);
    if (grid != nullptr) {
        *grid = std::move(g);
    }
    return peak;
}

Item item_of(const RunData& d, std::size_t i, std::int64_t t0, std::int64_t t1) {
    const auto& c = (*d.channels)[i];
    Item it;
    it.name = c.name;
    it.domain = c.domain;
    it.provenance = c.provenance;
    it.backend = c.backend;
    it.counted = c.counted;
    it.parent = c.parent;
    it.energy_j = integral_of(d, i, t0, t1);
    const double runtime = static_cast<double>(t1 - t0) * 1e-9;
    it.avg_w = runtime > 0 ? it.energy_j / runtime : 0;
    GridSeries grid;
    it.peak_w = peak_of(d, i, t0, t1, &grid);
    if (c.quantity == Quantity::energy && !grid.watts.empty()) {
        it.peak_bound = counter_peak_bound(d, i, grid); // where the truth's peak lies
    }
    if (c.quantity == Quantity::energy) {
        it.bound = counter_bound(d.series[i], t0, t1, counter_limits(d, i), d.estimated[i]);
        if (it.bound && d.profiled[i] && (t0 != d.t0 || t1 != d.t1)) {
            it.bound->assumed.profile = true; // the run's edges are the counter's reads
        }
    } else if (c.quantity == Quantity::power && c.provenance == Provenance::measured) {
        // A model's output is no measurement: an estimate carries no bound.
        it.bound = field_bound(d.series[i], t0, t1, field_limits_of(d, i));
    }
    return it;
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

bool is_part(const RunData& d, std::size_t i) {
    const auto& c = (*d.channels)[i];
    return c.quantity != Quantity::utilization && i != d.node_channel;
}

// Mean utilisation (%) over [t0, t1] of each "<name>.util" channel, by <name>.
std::map<std::string, double> utilisation(const RunData& d, std::int64_t t0, std::int64_t t1) {
    std::map<std::string, double> out;
    constexpr std::string_view suffix = ".util";
    for (std::size_t i = 0; i < d.channels->size(); ++i) {
        const auto& c = (*d.channels)[i];
        const auto& p = d.series[i];
        if (c.quantity != Quantity::utilization || p.empty() || !c.name.ends_with(suffix)) {
            continue;
        }
        const double rt = static_cast<double>(t1 - t0) * 1e-9;
        out[c.name.substr(0, c.name.size() - suffix.size())] =
            rt > 0 ? integral_of(d, i, t0, t1) / rt : interpolate(p, t0);
    }
    return out;
}

void compose_node(
    const RunData& d, Figures& f, std::int64_t t0, std::int64_t t1, bool node_peak_range) {
    double parts_j = 0;
    Provenance parts_prov = Provenance::measured;
    std::optional<Bound> parts_bound = Bound{0, 0, "quantum", {}, {}};
    for (const auto& p : f.parts) {
        parts_j += p.energy_j;
        parts_prov = weakest(parts_prov, p.provenance);
        parts_bound = sum_of(parts_bound, p.bound);
    }
    if (d.node_channel) {
        f.node = item_of(d, *d.node_channel, t0, t1);
        f.node.name = "node";
        // One peak per run everywhere: the table's is the power line's and the
        // HTML's, the highest window of the node's power series.
        if (const auto g = node_grid(d, t0, t1); !g.watts.empty()) {
            f.node.peak_w = *std::ranges::max_element(g.watts);
            if (node_peak_range) {
                f.node.peak_bound = node_peak_bound(d, g);
            }
        }
        if (!f.parts.empty()) {
            f.rest = named_item("rest", weakest(Provenance::derived, parts_prov), "",
                                f.node.energy_j - parts_j);
            if (f.node.bound && parts_bound) { // the node less the parts, ends crossed
                f.rest->bound = Bound{
                    f.node.bound->low - parts_bound->high, f.node.bound->high - parts_bound->low,
                    f.node.bound->half_width() >= parts_bound->half_width() ? f.node.bound->dominant
                                                                            : parts_bound->dominant,
                    f.node.bound->assumed | parts_bound->assumed, f.node.bound->terms};
                f.rest->bound->terms += parts_bound->terms;
            }
        }
    } else {
        // No node meter: the sum of the parts, plus the rest-of-node model where
        // there is one (a model: estimated); without one, a lower bound of what
        // the parts' provenance says (derived from measured parts).
        const double rest_w = d.facts.rest_watts.value_or(0);
        const auto prov =
            d.facts.rest_watts ? Provenance::estimated : weakest(Provenance::derived, parts_prov);
        f.node = named_item("node", prov, "", parts_j + rest_w * f.runtime_s);
        f.node.domain = Domain::node;
        f.node.lower_bound = !d.facts.rest_watts;
        if (!d.facts.rest_watts && !f.parts.empty()) { // a model's error is not stated here
            f.node.bound = parts_bound;
        }
        const auto g = node_grid(d, t0, t1);
        if (!g.watts.empty()) {
            f.node.peak_w = *std::ranges::max_element(g.watts);
            if (node_peak_range) {
                f.node.peak_bound = node_peak_bound(d, g);
            }
        }
        if (d.facts.rest_watts) {
            f.rest = named_item("rest", Provenance::estimated, "model", rest_w * f.runtime_s);
        }
    }
}

// Averages from energy and runtime; peak power never below the mean.
void finish(Figures& f) {
    const auto fix = [&](Item& it) {
        it.avg_w = f.runtime_s > 0 ? it.energy_j / f.runtime_s : 0;
        if (it.peak_w) {
            it.peak_w = std::max(*it.peak_w, it.avg_w);
        }
    };
    fix(f.node);
    if (f.rest) {
        fix(*f.rest);
    }
    for (auto* list : {&f.parts, &f.others}) {
        std::ranges::for_each(*list, fix);
    }
}

void add(Item& acc, const Item& x, double acc_s, double x_s) {
    acc.energy_j += x.energy_j;
    acc.bound = sum_of(acc.bound, x.bound);
    if (x.peak_w) {
        acc.peak_w = std::max(acc.peak_w.value_or(*x.peak_w), *x.peak_w);
    }
    // The highest of the occurrences' true peaks lies between the highest of their ranges'
    // ends (none where one of them has none).
    if (acc.peak_bound && x.peak_bound) {
        acc.peak_bound->low_w = std::max(acc.peak_bound->low_w, x.peak_bound->low_w);
        acc.peak_bound->high_w = std::max(acc.peak_bound->high_w, x.peak_bound->high_w);
        acc.peak_bound->assumed |= x.peak_bound->assumed;
    } else {
        acc.peak_bound.reset();
    }
    if (acc.mean_util && x.mean_util && acc_s + x_s > 0) {
        acc.mean_util = (*acc.mean_util * acc_s + *x.mean_util * x_s) / (acc_s + x_s);
    }
}

} // namespace

CounterLimits counter_limits(const RunData& d, std::size_t i) {
    // The highest power seen is the run's, at the counter's resolution.
    const auto seen = peak_of(d, i, d.t0, d.t1);
    return limits_of((*d.channels)[i], d.timing[i], d.series[i], seen, d.estimated[i]);
}

FieldLimits field_limits_of(const RunData& d, std::size_t i) {
    return field_limits((*d.channels)[i], d.timing[i], d.series[i], peak_of(d, i, d.t0, d.t1));
}

Figures figures_of(const RunData& d, std::int64_t t0, std::int64_t t1, bool node_peak_range) {
    t0 = std::clamp(t0, d.t0, d.t1);
    t1 = std::clamp(t1, t0, d.t1);
    Figures f;
    f.runtime_s = static_cast<double>(t1 - t0) * 1e-9;
    const auto util = utilisation(d, t0, t1);
    for (std::size_t i = 0; i < d.channels->size(); ++i) {
        if (!is_part(d, i)) {
            continue;
        }
        const auto& c = (*d.channels)[i];
        Item it = item_of(d, i, t0, t1);
        if (auto u = util.find(c.name); u != util.end()) {
            it.mean_util = u->second;
        }
        (c.counted ? f.parts : f.others).push_back(std::move(it));
    }
    compose_node(d, f, t0, t1, node_peak_range);
    finish(f);
    return f;
}

Figures figures_of(const RunData& d,
                   std::span<const std::pair<std::int64_t, std::int64_t>> windows) {
    Figures acc;
    bool first = true;
    for (const auto& [a, b] : windows) {
        Figures f = figures_of(d, a, b);
        if (first) {
            acc = std::move(f);
            first = false;
            continue;
        }
        add(acc.node, f.node, acc.runtime_s, f.runtime_s);
        if (acc.rest && f.rest) {
            add(*acc.rest, *f.rest, acc.runtime_s, f.runtime_s);
        }
        for (std::size_t i = 0; i < acc.parts.size() && i < f.parts.size(); ++i) {
            add(acc.parts[i], f.parts[i], acc.runtime_s, f.runtime_s);
        }
        for (std::size_t i = 0; i < acc.others.size() && i < f.others.size(); ++i) {
            add(acc.others[i], f.others[i], acc.runtime_s, f.runtime_s);
        }
        acc.runtime_s += f.runtime_s;
    }
    finish(acc);
    return acc;
}

std::string node_basis(const RunData& d) {
    if (d.node_channel) {
        const auto& c = (*d.channels)[*d.node_channel];
        return fmt::format("measured by {} ({})", c.name, c.backend);
    }
    if (d.facts.rest_watts) {
        return fmt::format("sum of parts + rest-of-node model {:g} W (estimated)",
                           *d.facts.rest_watts);
    }
    return "sum of parts only: the rest of the node is not modelled (set [node] rest_watts in "
           "the config), so this is a lower bound";
}

} // namespace jp::report
