// SPDX-License-Identifier: BSD-3-Clause
#include "report/sweep.hpp"

#include "report/difference.hpp"
#include "report/format.hpp"
#include "report/units.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace jp::report {
namespace {

bool name_char(char c, bool first) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

bool is_name(std::string_view s) {
    if (s.empty()) {
        return false;
    }
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (!name_char(s[i], i == 0)) {
            return false;
        }
    }
    return true;
}

// Calls f(begin, end, name) for each "{name}" in s (begin..end cover the braces).
template <class F> void each_placeholder(const std::string& s, F&& f) {
    for (std::size_t open = s.find('{'); open != std::string::npos; open = s.find('{', open + 1)) {
        const auto close = s.find('}', open + 1);
        if (close == std::string::npos) {
            return;
        }
        const std::string_view name{s.data() + open + 1, close - open - 1};
        if (is_name(name)) {
            f(open, close + 1, std::string{name});
        }
    }
}

std::string file_safe(std::string_view label) {
    std::string out;
    for (char c : label) {
        const bool keep = name_char(c, false) || c == '.' || c == '-';
        out += keep ? c : (c == '=' ? '-' : '_');
    }
    return out;
}

} // namespace

Result<SweepParam> parse_param(std::string_view spec) {
    const auto eq = spec.find('=');
    if (eq == std::string_view::npos || !is_name(spec.substr(0, eq))) {
        return fail(ErrorKind::config, "--param",
                    fmt::format("'{}' is not NAME=V1,V2,... (NAME: letters, digits, _)", spec));
    }
    SweepParam p{std::string{spec.substr(0, eq)}, {}, {}};
    std::string_view rest = spec.substr(eq + 1);
    while (true) {
        const auto comma = rest.find(',');
        const auto value = rest.substr(0, comma);
        if (value.empty()) {
            return fail(ErrorKind::config, "--param", fmt::format("'{}' has an empty value", spec));
        }
        if (std::ranges::find(p.values, value) == p.values.end()) {
            p.values.emplace_back(value);
        } else if (std::ranges::find(p.repeated, value) == p.repeated.end()) {
            p.repeated.emplace_back(value);
        }
        if (comma == std::string_view::npos) {
            break;
        }
        rest = rest.substr(comma + 1);
    }
    return p;
}

std::string point_status(const SweepPoint& p) {
    if (p.exit_code == 0) {
        return "ok";
    }
    if (p.summary) {
        const auto& runs = p.summary->all_failed ? p.summary->runs : p.summary->left_out;
        if (!runs.empty()) {
            if (auto text = outcome_text(runs.front().run); !text.empty()) {
                return text;
            }
        }
    }
    return exit_text(p.exit_code);
}

std::string GridPoint::label() const {
    std::string out;
    for (const auto& [name, value] : values) {
        out.append(out.empty() ? "" : ",").append(name).append("=").append(value);
    }
    return out;
}

std::vector<GridPoint> grid_points(const std::vector<SweepParam>& params) {
    std::vector<GridPoint> out{GridPoint{}};
    for (const auto& p : params) {
        std::vector<GridPoint> next;
        for (const auto& point : out) {
            for (const auto& v : p.values) {
                auto q = point;
                q.values.emplace_back(p.name, v);
                next.push_back(std::move(q));
            }
        }
        out = std::move(next);
    }
    return params.empty() ? std::vector<GridPoint>{} : out;
}

std::vector<std::string> placeholders(const std::vector<std::string>& argv) {
    std::vector<std::string> out;
    for (const auto& a : argv) {
        each_placeholder(a, [&](std::size_t, std::size_t, std::string name) {
            if (std::ranges::find(out, name) == out.end()) {
                out.push_back(std::move(name));
            }
        });
    }
    return out;
}

Result<std::vector<std::string>> substitute(const std::vector<std::string>& argv,
                                            const GridPoint& point) {
    std::vector<std::string> out;
    for (const auto& a : argv) {
        std::string result;
        std::size_t copied = 0;
        std::optional<std::string> unknown;
        each_placeholder(a, [&](std::size_t begin, std::size_t end, const std::string& name) {
            const auto it =
                std::ranges::find(point.values, name, &std::pair<std::string, std::string>::first);
            if (it == point.values.end()) {
                if (!unknown) {
                    unknown = name;
                }
                return;
            }
            result += a.substr(copied, begin - copied) + it->second;
            copied = end;
        });
        if (unknown) {
            std::string names; // the placeholders there are: {bs}, {lr}
            for (const auto& [name, value] : point.values) {
                names += (names.empty() ? "{" : ", {") + name + "}";
            }
            return fail(ErrorKind::config, "sweep",
                        fmt::format("unknown placeholder {{{}}} in '{}' (the parameters: {})",
                                    *unknown, a, names));
        }
        out.push_back(result + a.substr(copied));
    }
    return out;
}

std::string trace_file_name(const GridPoint& point, std::size_t position, std::size_t count) {
    const auto width = fmt::format("{}", count).size();
    return fmt::format("{:0{}}-{}.jptrace", position, std::max<std::size_t>(width, 2),
                       file_safe(point.label()));
}

std::optional<std::size_t> energy_optimal(const std::vector<SweepPoint>& points) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& p = points[i];
        if (p.exit_code != 0 || !p.summary) {
            continue;
        }
        if (!best ||
            p.summary->job_or_node_j().mean < points[*best].summary->job_or_node_j().mean) {
            best = i;
        }
    }
    return best;
}

std::vector<std::size_t> not_resolved_from(const std::vector<SweepPoint>& points,
                                           std::size_t best) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& p = points[i];
        if (i != best && p.exit_code == 0 && p.summary &&
            difference(p.summary->job_or_node_j(), points[best].summary->job_or_node_j()).verdict ==
                Verdict::same) {
            out.push_back(i);
        }
    }
    return out;
}

namespace {

// Whether every completed point's difference from the optimum could be judged: each point
// (the optimum included) with repeats or a sensor bound, so that its mean has a range (one
// run of a model has neither: its range is its value).
bool optimum_judged(const std::vector<SweepPoint>& points) {
    return std::ranges::all_of(points, [](const SweepPoint& p) {
        if (p.exit_code != 0 || !p.summary) {
            return true;
        }
        const auto r = mean_range(p.summary->job_or_node_j());
        return r.runs_known || r.sensor_known;
    });
}

} // namespace

std::string format_sweep(const std::vector<SweepPoint>& points, const std::filesystem::path& dir) {
    constexpr std::string_view k_row = "{:<28} {:>22} {:>18} {:>18} {:>18}  {}\n";
    double largest = 0;
    for (const auto& p : points) {
        largest = std::max(largest, p.summary ? p.summary->job_or_node_j().mean : 0.0);
    }
    const auto u = energy_unit(largest);
    std::string out = fmt::format(fmt::runtime(k_row), "point", fmt::format("Energy [{}]", u.name),
                                  "Runtime [s]", "Avg power [W]", "Node peak [W]", "status");
    for (const auto& p : points) {
        const std::string status = point_status(p);
        if (!p.summary) {
            out += fmt::format(fmt::runtime(k_row), p.label, "-", "-", "-", "-", status);
            continue;
        }
        const auto& s = *p.summary;
        out += fmt::format(fmt::runtime(k_row), p.label, energy_pm(s.job_or_node_j(), u),
                           pm(s.runtime_s, 1, s.runtime_s.mean < 10 ? 3 : 2),
                           pm(s.job_or_node_w(), 1, 1),
                           s.node_peak_w.n > 0 ? pm(s.node_peak_w, 1, 1) : "-", status);
    }
    if (const auto best = energy_optimal(points)) {
        const auto& b = points[*best];
        std::string within;
        for (const auto i : not_resolved_from(points, *best)) {
            within += (within.empty() ? "" : ", ") + points[i].label;
        }
        out += fmt::format(
            "energy-optimal: {} ({}, {} {}){}\n", b.label, energy_text(b.summary->job_or_node_j()),
            to_string(b.summary->runs.front().node.provenance),
            b.summary->job_energy_j ? "job's share of the node (attributed)" : "node energy",
            within.empty() ? ""
                           : fmt::format("; not resolved from {}: they differ by less than the "
                                         "runs' spread and the sensors' bound",
                                         within));
        if (!optimum_judged(points)) {
            out += "  (whether it stands out is not known: a point with one run and no sensor "
                   "bound has no range; use -r)\n";
        }
    } else {
        out += "energy-optimal: none (no point completed)\n";
    }
    const auto failed =
        std::ranges::count_if(points, [](const auto& p) { return p.exit_code != 0; });
    if (failed > 0) {
        out += fmt::format("{} of {} points failed\n", failed, points.size());
    }
    if (std::ranges::any_of(points,
                            [](const auto& p) { return p.summary && p.summary->job_avg_w; })) {
        out += "note: Energy and Avg power are the job's share of its shared node where "
               "attributed (docs/attribution.md; the node's are node_energy_j and node_avg_w in "
               "--json); Node peak is the node's\n";
    }
    out += "(mean ± sample std over repeats) traces: " + dir.string() + "\n";
    return out;
}

nlohmann::json sweep_json(const std::vector<SweepPoint>& points, const std::filesystem::path& dir) {
    nlohmann::json j{{"directory", dir.string()}};
    j["points"] = nlohmann::json::array();
    for (const auto& p : points) {
        nlohmann::json pj{{"label", p.label},
                          {"command", p.command},
                          {"trace", p.trace.string()},
                          {"exit_code", p.exit_code},
                          {"ok", p.exit_code == 0}};
        if (p.summary) {
            pj["runs"] = p.summary->runs.size();
            pj["node_energy_j"] = stat_json(p.summary->node_energy_j);
            pj["job_energy_j"] = p.summary->job_energy_j ? stat_json(*p.summary->job_energy_j)
                                                         : nlohmann::json(nullptr);
            pj["runtime_s"] = stat_json(p.summary->runtime_s);
            pj["node_avg_w"] = stat_json(p.summary->node_avg_w);
            pj["job_avg_w"] =
                p.summary->job_avg_w ? stat_json(*p.summary->job_avg_w) : nlohmann::json(nullptr);
            pj["node_peak_w"] = stat_json(p.summary->node_peak_w);
            pj["provenance"] = to_string(p.summary->runs.front().node.provenance);
        }
        j["points"].push_back(pj);
    }
    const auto best = energy_optimal(points);
    j["energy_optimal"] = best ? nlohmann::json(points[*best].label) : nlohmann::json(nullptr);
    // The points the optimum does not stand out from (empty: it does).
    j["energy_optimal_not_resolved_from"] = nlohmann::json::array();
    for (const auto i : best ? not_resolved_from(points, *best) : std::vector<std::size_t>{}) {
        j["energy_optimal_not_resolved_from"].push_back(points[i].label);
    }
    // false: some point's difference from the optimum has no range to judge it by.
    j["energy_optimal_judged"] =
        best ? nlohmann::json(optimum_judged(points)) : nlohmann::json(nullptr);
    return j;
}

} // namespace jp::report
