// SPDX-License-Identifier: BSD-3-Clause
#include "report/attribution.hpp"

#include "attrib/allocation.hpp"

#include <algorithm>
#include <charconv>
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

std::optional<attrib::Allocation> allocation_from(const nlohmann::json& j) {
    try {
        attrib::Allocation a;
        a.node_cpus = j.at("cpus").get<std::vector<int>>();
        a.given_cpus = j.at("given_cpus").get<std::vector<int>>();
        for (const auto& [cpu, pkg] : j.at("package_of").items()) {
            a.package_of[std::stoi(cpu)] = pkg.get<int>();
        }
        if (!j.at("memory_total").is_null()) {
            a.memory_total = j.at("memory_total").get<std::uint64_t>();
        }
        if (!j.at("memory_given").is_null()) {
            a.memory_given = j.at("memory_given").get<std::uint64_t>();
        }
        if (!j.at("gpus_given").is_null()) {
            a.gpus_given = j.at("gpus_given").get<std::vector<int>>();
        }
        a.gpu_source = j.value("gpu_source", "");
        return a;
    } catch (const std::exception&) {
        return std::nullopt;
    }
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
        const auto idx = index_after(c.name, "gpu");
        r.gpu = true;
        r.given = idx && a.holds_gpu(*idx) ? 1.0 : (idx ? 0.0 : 1.0);
        r.by = r.given > 0 ? "the job's GPU" : "not the job's GPU";
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

Use use_of(const trace::Usage& usage) {
    Use u;
    std::vector<int> packages;
    for (const auto& r : usage.records) {
        if (std::ranges::find(packages, r.package) == packages.end()) {
            packages.push_back(r.package);
        }
    }
    for (std::size_t i = 0; i < usage.records.size();) {
        const auto t = usage.records[i].t_ns;
        u.t.push_back(t);
        for (const int p : packages) {
            u.by_package[p].emplace_back(u.by_package[p].empty() ? std::pair{0.0, 0.0}
                                                                 : u.by_package[p].back());
        }
        for (; i < usage.records.size() && usage.records[i].t_ns == t; ++i) {
            u.by_package[usage.records[i].package].back() = {usage.records[i].job_s,
                                                             usage.records[i].busy_s};
        }
    }
    return u;
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
    nlohmann::json facts;
    try {
        facts = nlohmann::json::parse(usage.facts);
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
    const auto alloc = allocation_from(facts);
    if (!alloc || alloc->node_cpus.empty()) {
        return std::nullopt;
    }
    std::map<std::string, double> config_idle;
    if (const auto it = facts.find("idle_w"); it != facts.end() && it->is_object()) {
        for (const auto& [name, w] : it->items()) {
            if (w.is_number() && w.get<double>() >= 0) {
                config_idle[name] = w.get<double>();
            }
        }
    }
    Attributor at;
    at.m_data = &d;
    auto& out = at.m_template;
    out.job_cpu = facts.value("job", "");
    out.idle_source =
        !config_idle.empty() ? "config" : (!baseline_idle.empty() ? "baseline run" : "");
    const auto& idle_w = !config_idle.empty() ? config_idle : baseline_idle;
    out.node_cpus = static_cast<double>(alloc->node_cpus.size());
    out.given_cpus = static_cast<double>(alloc->given_cpus.size());
    at.m_whole_node = alloc->whole_node();
    at.m_use = std::make_shared<Use>(use_of(usage));

    for (std::size_t i = 0; i < d.channels->size(); ++i) {
        const auto& c = (*d.channels)[i];
        if (c.counted && c.quantity != Quantity::utilization && i != d.node_channel) {
            at.m_channels.push_back(i);
            const auto r = rule_for(c, *alloc);
            at.m_rules.push_back({r.package, r.given, r.gpu});
            out.parts.push_back({c.name, {}, 0, r.by});
        }
    }
    if (d.node_channel.has_value() ? !at.m_channels.empty() : d.facts.rest_watts.has_value()) {
        at.m_rules.push_back({-1, alloc->cpu_share(-1), false});
        out.parts.push_back({"rest", {}, 0, "the node's cores"});
    }
    for (auto& p : out.parts) {
        if (const auto it = idle_w.find(p.name); it != idle_w.end()) {
            p.idle_w = it->second;
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
    }
    if (const auto it = facts.find("notes"); it != facts.end() && it->is_array()) {
        for (const auto& n : *it) {
            if (n.is_string()) {
                out.notes.push_back(n.get<std::string>());
            }
        }
    }
    return at;
}

Attribution Attributor::over(std::span<const std::pair<std::int64_t, std::int64_t>> windows) const {
    const auto& d = *m_data;
    const auto& use = *m_use;
    Attribution out = m_template;
    for (const auto& [w0, w1] : windows) {
        const auto t0 = std::clamp(w0, d.t0, d.t1);
        const auto t1 = std::clamp(w1, t0, d.t1);
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
                attrib::Interval in{energy, seconds, out.parts[n].idle_w, r.given, 0, false};
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
    out.exclusive = m_whole_node && out.node.other_j <= 0.01 * std::abs(out.node.node_j());
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
