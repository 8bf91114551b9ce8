// SPDX-License-Identifier: BSD-3-Clause
#include "report/attribution.hpp"

#include "attrib/allocation.hpp"
#include "core/text.hpp"
#include "report/attribution_facts.hpp"
#include "sys/file.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace jp::report {

// Cumulative (job, busy) CPU seconds of a package (or the node) at each usage time.
struct Use {
    std::vector<std::int64_t> t;
    std::map<int, std::vector<std::pair<double, double>>> by_package;
    // Linear between readings; held before the first and after the last.
    [[nodiscard]] std::pair<double, double> value(int package, std::int64_t time) const {
        const auto it = std::ranges::lower_bound(t, time);
        if (it == t.end()) {
            return at(package, t.size() - 1);
        }
        const auto k = static_cast<std::size_t>(it - t.begin());
        if (*it == time || k == 0) {
            return at(package, k);
        }
        const auto lo = at(package, k - 1);
        const auto hi = at(package, k);
        const double f =
            static_cast<double>(time - t[k - 1]) / static_cast<double>(t[k] - t[k - 1]);
        return {lo.first + f * (hi.first - lo.first), lo.second + f * (hi.second - lo.second)};
    }
    [[nodiscard]] std::pair<double, double> at(int package, std::size_t k) const {
        if (package >= 0) {
            if (const auto it = by_package.find(package); it != by_package.end()) {
                return it->second[k];
            }
        }
        std::pair<double, double> sum{0, 0};
        for (const auto& [p, v] : by_package) {
            sum.first += v[k].first;
            sum.second += v[k].second;
        }
        return sum;
    }
};

namespace {

// "cpu3.package" -> 3, "gpu2" -> 2 for prefix "gpu"; nullopt otherwise.
std::optional<int> index_after(std::string_view name, std::string_view prefix) {
    if (!name.starts_with(prefix)) {
        return std::nullopt;
    }
    name.remove_prefix(prefix.size());
    int v = -1;
    const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), v);
    if (ec != std::errc{} || end == name.data() ||
        (end != name.data() + name.size() && *end != '.')) {
        return std::nullopt;
    }
    return v;
}

// How one channel is split.
struct Rule {
    int package = -1; // the package whose CPU time decides its use (-1: the node)
    double given = 0; // its share given to the job
    bool gpu = false; // used by whoever holds it
    std::string by;
};

Rule rule_for(const Channel& c, const attrib::Allocation& a) {
    Rule r;
    if (c.domain == Domain::gpu) {
        if (const auto idx = index_after(c.name, "gpu")) {
            r.gpu = true;
            r.given = a.holds_gpu(*idx) ? 1.0 : 0.0;
            r.by = r.given > 0 ? "the job's GPU" : "not the job's GPU";
            return r;
        }
        // A GPU without an index (hwmon's gpu.amdgpu.<pci>): never the job's by default.
        r.given = a.cpu_share(-1);
        r.by = "a GPU not matched to an index: split like the rest of the node";
        return r;
    }
    const auto pkg = index_after(c.name, "cpu");
    const bool on_package =
        pkg && (c.domain == Domain::cpu_package || c.domain == Domain::cpu_core ||
                c.domain == Domain::cpu_uncore || c.domain == Domain::dram);
    r.package = on_package ? *pkg : -1;
    if (c.domain == Domain::dram) {
        r.given = a.memory_share();
        r.by = on_package ? fmt::format("memory given; use by package {}'s CPU time", *pkg)
                          : "memory given; use by CPU time";
    } else {
        r.given = a.cpu_share(r.package);
        r.by = on_package ? fmt::format("package {}'s cores", *pkg) : "the node's cores";
    }
    return r;
}

// The readings by time, checked: at most k_packages packages, each one the facts name
// (package 0 when they name none); finite, non-negative, never decreasing. nullopt otherwise.
std::optional<Use> use_of(const trace::Usage& usage, const attrib::Allocation& alloc) {
    constexpr std::size_t k_packages = 256; // more sockets than any node has
    std::vector<int> allowed{0};
    for (const auto& [cpu, pkg] : alloc.package_of) {
        if (std::ranges::find(allowed, pkg) == allowed.end()) {
            allowed.push_back(pkg);
        }
    }
    std::vector<int> packages;
    for (const auto& r : usage.records) {
        if (std::ranges::find(allowed, r.package) == allowed.end() || !std::isfinite(r.job_s) ||
            !std::isfinite(r.busy_s) || r.job_s < 0 || r.busy_s < 0) {
            return std::nullopt;
        }
        if (std::ranges::find(packages, r.package) == packages.end()) {
            packages.push_back(r.package);
            if (packages.size() > k_packages) {
                return std::nullopt;
            }
        }
    }
    Use u;
    for (std::size_t i = 0; i < usage.records.size();) {
        const auto t = usage.records[i].t_ns;
        u.t.push_back(t);
        for (const int p : packages) {
            auto& v = u.by_package[p];
            v.emplace_back(v.empty() ? std::pair{0.0, 0.0} : v.back());
        }
        for (; i < usage.records.size() && usage.records[i].t_ns == t; ++i) {
            auto& v = u.by_package[usage.records[i].package];
            const std::pair next{usage.records[i].job_s, usage.records[i].busy_s};
            if (v.size() >= 2 &&
                (next.first < v[v.size() - 2].first || next.second < v[v.size() - 2].second)) {
                return std::nullopt; // cumulative readings that go back
            }
            v.back() = next;
        }
    }
    // The job's time and the node's come from different clocks (a group's scheduler time
    // or the process tree's 10 ms ticks against the node's): where the job's runs ahead of
    // the node's busy time in an interval, the excess is carried into the next ones rather
    // than cut, so the job's whole CPU time is used up to what the node was busy.
    for (auto& [package, v] : u.by_package) {
        double carry = 0;
        double job_prev = v.empty() ? 0 : v.front().first;
        for (std::size_t k = 1; k < v.size(); ++k) {
            const double dj = v[k].first - job_prev + carry;
            const double db = std::max(v[k].second - v[k - 1].second, 0.0);
            const double take = std::clamp(dj, 0.0, db);
            job_prev = v[k].first;
            carry = dj - take;
            v[k].first = v[k - 1].first + take;
        }
    }
    return u;
}

// Idle power per part: the config's where it names the part, else the baseline run's.
std::map<std::string, double> idle_power(const nlohmann::json& facts,
                                         const std::map<std::string, double>& baseline,
                                         bool& from_config) {
    std::map<std::string, double> idle = baseline;
    if (const auto it = facts.find("idle_w"); it != facts.end() && it->is_object()) {
        for (const auto& [name, w] : it->items()) {
            if (w.is_number() && std::isfinite(w.get<double>()) && w.get<double>() >= 0) {
                idle[name] = w.get<double>();
                from_config = true;
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
    const auto f = figures_of(b, b.t0, b.t1);
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
    bool from_config = false;
    const auto idle_w = idle_power(facts, baseline_idle, from_config);
    Attributor at;
    at.m_data = &d;
    auto& out = at.m_template;
    out.job_cpu = one_line(facts.value("job", std::string{}), 200);
    out.idle_source = from_config && !baseline_idle.empty() ? "config, else baseline run"
                      : from_config                         ? "config"
                      : !baseline_idle.empty()              ? "baseline run"
                                                            : "";
    out.node_cpus = static_cast<double>(alloc->node_cpus.size());
    out.given_cpus = static_cast<double>(alloc->given_cpus.size());
    at.m_whole_node = alloc->whole_node();
    at.m_use = std::make_shared<Use>(std::move(*use));

    for (std::size_t i = 0; i < d.channels->size(); ++i) {
        const auto& c = (*d.channels)[i];
        if (c.counted && c.quantity != Quantity::utilization && i != d.node_channel) {
            at.m_channels.push_back(i);
            const auto r = rule_for(c, *alloc);
            at.m_rules.push_back({r.package, r.given, r.gpu});
            out.parts.push_back({c.name, {}, std::nullopt, r.by});
        }
    }
    if (d.node_channel || d.facts.rest_watts) {
        // The node less its parts, or its rest-of-node model; a node meter with no parts
        // is split whole, the same way.
        at.m_rules.push_back({-1, alloc->cpu_share(-1), false});
        out.parts.push_back({at.m_channels.empty() && d.node_channel ? "node" : "rest",
                             {},
                             std::nullopt,
                             "the node's cores"});
    }
    set_idle(out, idle_w);
    add_recorded_notes(facts, out.notes);
    return at;
}

Attribution Attributor::over(std::span<const std::pair<std::int64_t, std::int64_t>> windows) const {
    const auto& d = *m_data;
    const auto& use = *m_use;
    Attribution out = m_template;
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
        for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
            const auto a = cuts[k];
            const auto b = cuts[k + 1];
            if (b <= a) {
                continue;
            }
            const double seconds = static_cast<double>(b - a) * 1e-9;
            double parts_j = 0;
            for (std::size_t n = 0; n < out.parts.size(); ++n) {
                double energy = 0;
                if (n < m_channels.size()) {
                    energy = integral_of(d, m_channels[n], a, b);
                    parts_j += energy;
                } else if (d.node_channel) {
                    energy = integral_of(d, *d.node_channel, a, b) - parts_j;
                } else {
                    energy = d.facts.rest_watts.value_or(0) * seconds;
                }
                const auto& r = m_rules[n];
                attrib::Interval in{energy,  seconds, out.parts[n].idle_w.value_or(0.0),
                                    r.given, 0,       false};
                if (r.gpu) {
                    in.use = r.given;
                    in.used = true;
                } else if (!use.t.empty()) {
                    const auto [job0, busy0] = use.value(r.package, a);
                    const auto [job1, busy1] = use.value(r.package, b);
                    if (busy1 - busy0 > 0) {
                        in.use = std::clamp((job1 - job0) / (busy1 - busy0), 0.0, 1.0);
                        in.used = true;
                    }
                }
                out.parts[n].share += attrib::split(in);
            }
        }
    }
    for (const auto& p : out.parts) {
        out.node += p.share;
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
