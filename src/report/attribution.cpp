// SPDX-License-Identifier: BSD-3-Clause
#include "report/attribution.hpp"

#include "attrib/allocation.hpp"
#include "core/text.hpp"
#include "report/attribution_facts.hpp"
#include "report/attribution_ledger.hpp"
#include "report/attribution_rules.hpp"
#include "report/attribution_use.hpp"
#include "sys/file.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace jp::report {

namespace {

// Idle power per part: the config's where it names the part, else the baseline run's.
// Where the idle powers came from: the config, jouleprofd's learning (how, in words).
struct IdleFrom {
    bool config = false;
    std::string learned;
};

std::map<std::string, double> idle_power(const nlohmann::json& facts,
                                         const std::map<std::string, double>& baseline,
                                         IdleFrom& from) {
    std::map<std::string, double> idle = baseline;
    const auto learned = facts.find("idle_learned");
    const bool any_learned = learned != facts.end() && learned->is_object();
    if (const auto it = facts.find("idle_w"); it != facts.end() && it->is_object()) {
        for (const auto& [name, w] : it->items()) {
            if (w.is_number() && std::isfinite(w.get<double>()) && w.get<double>() >= 0) {
                idle[name] = w.get<double>();
                const auto how = any_learned ? learned->find(name) : facts.end();
                if (any_learned && how != learned->end() && how->is_string()) {
                    if (from.learned.empty()) {
                        from.learned = one_line(how->get<std::string>(), 160);
                    }
                } else {
                    from.config = true;
                }
            }
        }
    }
    return idle;
}

// Each part's idle power, the method in words, and a note for what has none.
void set_idle(Attribution& out, const std::map<std::string, double>& idle_w) {
    std::string missing;
    for (auto& p : out.parts) {
        if (const auto it = idle_w.find(p.name); it != idle_w.end()) {
            p.idle_w = it->second;
        } else {
            missing += (missing.empty() ? "" : ", ") + p.name;
        }
    }
    out.method = out.idle_source.empty()
                     ? "all power by CPU time (idle power unknown)"
                     : fmt::format("idle by allocation ({}), dynamic by CPU time", out.idle_source);
    if (out.idle_source.empty()) {
        out.notes.emplace_back(
            "idle power unknown: each part's whole energy is split by CPU time, so a job is not "
            "charged the idle power of what it holds (give [attribution] idle_watts in the "
            "config, or measure a baseline with --baseline)");
    } else if (!missing.empty()) {
        out.notes.push_back(
            fmt::format("no idle power for {}: all of its energy is split by CPU time", missing));
    }
}

// What the monitor noted while measuring (one line each, at most 32).
void add_recorded_notes(const nlohmann::json& facts, std::vector<std::string>& notes) {
    if (const auto it = facts.find("notes"); it != facts.end() && it->is_array()) {
        for (const auto& n : *it) {
            if (n.is_string() && notes.size() < 32) {
                notes.push_back(one_line(n.get<std::string>(), 300));
            }
        }
    }
}

} // namespace

std::map<std::string, double> idle_of_baseline(const RunData& b) {
    std::map<std::string, double> idle;
    const double seconds = static_cast<double>(b.t1 - b.t0) * 1e-9;
    if (seconds <= 0) {
        return idle;
    }
    const auto f = figures_of(b, b.t0, b.t1, false); // (energies only)
    for (const auto& p : f.parts) {
        idle[p.name] = std::max(p.energy_j / seconds, 0.0);
    }
    if (f.rest) {
        idle["rest"] = std::max(f.rest->energy_j / seconds, 0.0);
    }
    return idle;
}

std::optional<Attributor> Attributor::make(const RunData& d,
                                           const trace::Usage& usage,
                                           const std::map<std::string, double>& baseline_idle) {
    if (usage.damaged) {
        return std::nullopt;
    }
    try {
        return make_from(d, nlohmann::json::parse(usage.facts), usage, baseline_idle);
    } catch (const nlohmann::json::exception&) {
        return std::nullopt; // not JSON, or a field of another type: damaged
    }
}

std::optional<Attributor>
Attributor::make_from(const RunData& d,
                      const nlohmann::json& facts,
                      const trace::Usage& usage,
                      const std::map<std::string, double>& baseline_idle) {
    const auto alloc = allocation_from(facts);
    if (!alloc || alloc->node_cpus.empty()) {
        return std::nullopt;
    }
    auto use = use_of(usage, *alloc);
    if (!use) {
        return std::nullopt;
    }
    IdleFrom from;
    const auto idle_w = idle_power(facts, baseline_idle, from);
    Attributor at;
    at.m_data = &d;
    auto& out = at.m_template;
    out.job_cpu = one_line(facts.value("job", std::string{}), 200);
    std::vector<std::string> sources;
    if (from.config) {
        sources.emplace_back("config");
    }
    if (!from.learned.empty()) {
        sources.push_back(from.learned);
    }
    if (!baseline_idle.empty()) {
        sources.emplace_back("baseline run");
    }
    out.idle_source = fmt::format("{}", fmt::join(sources, ", else "));
    out.node_cpus = static_cast<double>(alloc->node_cpus.size());
    out.given_cpus = static_cast<double>(alloc->cpus_given());
    at.m_whole_node = alloc->whole_node();
    at.m_use = std::make_shared<Use>(std::move(*use));

    for (std::size_t i = 0; i < d.channels->size(); ++i) {
        const auto& c = (*d.channels)[i];
        if (c.counted && c.quantity != Quantity::utilization && i != d.node_channel) {
            at.m_channels.push_back(i);
            const auto r = rule_for(c, *alloc);
            at.m_rules.push_back({r.package, r.given, r.gpu, r.gpu_index, r.by_cpus});
            out.parts.push_back({c.name, {}, std::nullopt, r.by});
        }
    }
    if (d.node_channel || d.facts.rest_watts) {
        // The node less its parts, or its rest-of-node model; a node meter with no parts
        // is split whole, the same way.
        at.m_rules.push_back({-1, alloc->cpu_share(-1), false, -1, true});
        out.parts.push_back({at.m_channels.empty() && d.node_channel ? "node" : "rest",
                             {},
                             std::nullopt,
                             "the node's cores"});
    }
    set_idle(out, idle_w);
    at.m_ledger = ledger_shares(facts, *alloc, d.t0, out);
    add_recorded_notes(facts, out.notes);
    at.m_gpus = std::make_shared<const GpuPresence>(usage.gpus);
    std::vector<int> held;
    for (const auto& r : at.m_rules) {
        if (r.gpu && r.given > 0) {
            held.push_back(r.gpu_index);
        }
    }
    if (usage.gpus_damaged && !held.empty()) {
        out.notes.emplace_back("the trace's listing of who had the GPUs is damaged: each GPU "
                               "the job holds is taken as all its own");
    }
    if (!held.empty()) { // the method line says how the job's GPUs were split too
        out.method += usage.gpus.empty() || usage.gpus_damaged
                          ? "; a GPU the job holds, all its own"
                          : "; a GPU the job holds, by who had it (NVML's process lists)";
    }
    for (auto& n : at.m_gpus->notes(held, d.t0, d.t1)) {
        out.notes.push_back(std::move(n));
    }
    for (const auto i : at.m_channels) {
        at.m_sources.push_back(source_of(d, i));
    }
    if (d.node_channel) {
        at.m_node_source = source_of(d, *d.node_channel);
    }
    at.m_errors = CutErrors(d, at.m_sources, at.m_node_source);
    return at;
}

Attribution Attributor::over(std::span<const std::pair<std::int64_t, std::int64_t>> windows) const {
    const auto& d = *m_data;
    const auto& use = *m_use;
    Attribution out = m_template;
    std::vector<bool> bounded(out.parts.size(), true);
    for (auto& p : out.parts) {
        p.share.job_bound = Bound{0, 0, "quantum", {}, {}};
    }
    double seconds_in = 0;
    double seconds_read = 0; // of them, between the first and the last usage reading
    for (const auto& [w0, w1] : windows) {
        const auto t0 = std::clamp(w0, d.t0, d.t1);
        const auto t1 = std::clamp(w1, t0, d.t1);
        seconds_in += static_cast<double>(t1 - t0) * 1e-9;
        if (use.t.size() >= 2) {
            const auto a = std::max(t0, use.t.front());
            const auto b = std::min(t1, use.t.back());
            seconds_read += b > a ? static_cast<double>(b - a) * 1e-9 : 0.0;
        }
        if (t1 <= t0) {
            continue;
        }
        // The intervals: the window's edges and every usage reading inside it.
        std::vector<std::int64_t> cuts{t0};
        for (auto it = std::ranges::upper_bound(use.t, t0); it != use.t.end() && *it < t1; ++it) {
            cuts.push_back(*it);
        }
        cuts.push_back(t1);
        if (!use.t.empty()) {
            const auto [job0, busy0] = use.value(-1, t0);
            const auto [job1, busy1] = use.value(-1, t1);
            out.job_cpu_s += job1 - job0;
            out.node_busy_s += busy1 - busy0;
        }
        // Each part cut where its counter was read nearest each usage reading: the job's
        // use is interpolated there, and the counter's value at a cut is its own reading.
        for (std::size_t n = 0; n < out.parts.size(); ++n) {
            const auto own = snap_to_readings(cuts, readings_of(n));
            const auto intervals = intervals_of(n, own);
            for (const auto& in : intervals) {
                out.parts[n].share += attrib::split(in);
            }
            bounded[n] = bounded[n] && add_bound(out.parts[n].share, n, own, intervals);
        }
    }
    for (std::size_t n = 0; n < out.parts.size(); ++n) {
        if (!bounded[n]) {
            out.parts[n].share.job_bound.reset();
        }
    }
    out.node.job_bound = Bound{0, 0, "quantum", {}, {}};
    for (const auto& p : out.parts) {
        out.node += p.share;
        out.node.job_bound = sum_of(out.node.job_bound, p.share.job_bound);
    }
    // Exclusive only on evidence: the CPU use read over (nearly) the whole window, energy
    // drawn, the whole node given, others under 1 % of it.
    const bool covered = seconds_in > 0 && seconds_read >= 0.9 * seconds_in;
    if (!covered && seconds_in > 0) {
        out.notes.push_back(fmt::format(
            "the CPU use was read over {:.0f} % of the time only: the rest is split by what the "
            "job was given",
            100 * seconds_read / seconds_in));
    }
    out.exclusive = covered && m_whole_node && out.node.node_j() > 0 &&
                    out.node.other_j <= 0.01 * out.node.node_j();
    return out;
}

std::span<const TimedValue> Attributor::readings_of(std::size_t part) const {
    const auto& d = *m_data;
    if (part < m_channels.size()) {
        return d.series[m_channels[part]];
    }
    return d.node_channel ? std::span<const TimedValue>{d.series[*d.node_channel]}
                          : std::span<const TimedValue>{}; // a model: no readings
}

std::vector<attrib::Interval> Attributor::intervals_of(std::size_t part,
                                                       std::span<const std::int64_t> cuts) const {
    const auto& d = *m_data;
    const auto& use = *m_use;
    const auto& r = m_rules[part];
    std::vector<attrib::Interval> out;
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
        const auto a = cuts[k];
        const auto b = cuts[k + 1];
        const double seconds = static_cast<double>(b - a) * 1e-9;
        double energy = 0;
        if (part < m_channels.size()) {
            energy = integral_of(d, m_channels[part], a, b);
        } else if (d.node_channel) { // the node less its parts
            energy = integral_of(d, *d.node_channel, a, b);
            for (const auto c : m_channels) {
                energy -= integral_of(d, c, a, b);
            }
        } else {
            energy = d.facts.rest_watts.value_or(0) * seconds;
        }
        // Given by CPUs other jobs held too: split evenly with them, as the ledger says.
        const double given = r.by_cpus && m_ledger ? m_ledger->given(r.package, a, b) : r.given;
        attrib::Interval in{energy, seconds, m_template.parts[part].idle_w.value_or(0.0),
                            given,  0,       false};
        if (r.gpu) {
            in.use = r.given;
            in.used = true;
            if (r.given > 0) {
                m_gpus->apply(in, r.gpu_index, a, b); // others had it too
            }
        } else if (!use.t.empty()) {
            const auto [job0, busy0] = use.value(r.package, a);
            const auto [job1, busy1] = use.value(r.package, b);
            if (busy1 - busy0 > 0) {
                in.use = std::clamp((job1 - job0) / (busy1 - busy0), 0.0, 1.0);
                in.used = true;
            }
        }
        out.push_back(in);
    }
    return out;
}

bool Attributor::add_bound(JobShare& share,
                           std::size_t part,
                           std::span<const std::int64_t> cuts,
                           std::span<const attrib::Interval> intervals) const {
    if (part < m_channels.size()) {
        const auto& c = (*m_data->channels)[m_channels[part]];
        if (c.quantity == Quantity::power && c.provenance == Provenance::measured) {
            const auto& field = m_sources[part];
            const auto b =
                field ? field_share_bound(*m_data, *field, cuts, intervals) : std::nullopt;
            share.job_bound = sum_of(share.job_bound, b);
            return b.has_value();
        }
    }
    std::vector<CutError> errors;
    errors.reserve(cuts.size());
    for (const auto t : cuts) {
        const auto e = m_errors.at(part, t);
        if (!e) {
            if (part != m_channels.size()) {
                return false;
            }
            // The rest where the node or a part is a power field (a BMC's node reading beside
            // RAPL counters): interval by interval.
            const auto b = m_node_source ? rest_share_bound(*m_data, *m_node_source, m_sources,
                                                            cuts, intervals)
                                         : std::nullopt;
            share.job_bound = sum_of(share.job_bound, b);
            return b.has_value();
        }
        errors.push_back(*e);
    }
    share.job_bound = sum_of(share.job_bound, share_bound(intervals, errors));
    return true;
}

std::optional<Attribution> attribute(const RunData& d,
                                     const trace::Usage& usage,
                                     const std::map<std::string, double>& baseline_idle) {
    const auto at = Attributor::make(d, usage, baseline_idle);
    if (!at) {
        return std::nullopt;
    }
    const std::pair<std::int64_t, std::int64_t> whole{d.t0, d.t1};
    return at->over(std::span{&whole, 1});
}

} // namespace jp::report
