// SPDX-License-Identifier: BSD-3-Clause
#include "report/study.hpp"

#include "report/compare.hpp"
#include "report/sweep.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <map>
#include <numeric>
#include <tuple>

namespace jp::report {
namespace {

std::string known_names(const GridPoint& values) {
    std::string out;
    for (const auto& [name, value] : values.values) {
        out += (out.empty() ? "" : ", ") + name;
    }
    return out;
}

// Every placeholder of the command has a value, or a one-line reason why not.
Result<void> check_placeholders(const Study& study,
                                const std::vector<std::string>& command,
                                const GridPoint& values,
                                const StudyKey& key) {
    const auto where = study.source.empty() ? study.name : study.source.string();
    for (const auto& name : placeholders(command)) {
        if (std::ranges::find(values.values, name, &std::pair<std::string, std::string>::first) !=
            values.values.end()) {
            continue;
        }
        const bool a_var = std::ranges::any_of(study.settings, [&](const StudySetting& s) {
            return std::ranges::find(s.vars, name, &std::pair<std::string, std::string>::first) !=
                   s.vars.end();
        });
        if (a_var) {
            return fail(ErrorKind::config, where,
                        fmt::format("setting '{}' has no var '{}' ({{{}}} in {}/{})", key.setting,
                                    name, name, key.workload, key.mode));
        }
        return fail(ErrorKind::config, where,
                    fmt::format("unknown placeholder {{{}}} in {}/{} (known: {})", name,
                                key.workload, key.mode, known_names(values)));
    }
    return {};
}

GridPoint values_of(const Study& study,
                    const std::filesystem::path& dir,
                    const StudyKey& key,
                    const StudySetting& setting) {
    GridPoint p{{{"dir", dir.string()},
                 {"mode", key.mode},
                 {"workload", key.workload},
                 {"setting", setting.name.empty() ? std::string{"default"} : setting.name}}};
    std::ranges::copy(setting.vars, std::back_inserter(p.values));
    for (const auto& var : study.vars) { // the study's defaults, unless the setting has its own
        if (std::ranges::find(setting.vars, var.first,
                              &std::pair<std::string, std::string>::first) == setting.vars.end()) {
            p.values.push_back(var);
        }
    }
    return p;
}

int shell_code(const trace::RunInfo& run) {
    return run.signal ? 128 + *run.signal : run.exit_code.value_or(0);
}

std::string_view share_of(Domain d) {
    switch (d) {
    case Domain::cpu_package:
    case Domain::cpu_core:
    case Domain::cpu_uncore:
        return "cpu";
    case Domain::dram:
        return "dram";
    case Domain::gpu:
        return "gpu";
    default:
        return "other";
    }
}

constexpr std::array<std::string_view, 5> k_share_order{"cpu", "dram", "gpu", "other", "rest"};

// The share a part counts to, from its domain in the first run that has it.
std::string_view share_name(const RepeatSummary& group, const std::string& part) {
    if (part == "rest") {
        return "rest";
    }
    for (const auto& run : group.runs) {
        const auto it = std::ranges::find(run.parts, part, &Item::name);
        if (it != run.parts.end()) {
            return share_of(it->domain);
        }
    }
    return "other";
}

struct Pool {
    std::string node_type;
    std::string label;
    std::vector<RunSummary> runs;
    std::vector<int> warmup_failures;
};

Pool& pool_for(std::vector<Pool>& pools, const std::string& node_type, const std::string& label) {
    const auto it = std::ranges::find_if(
        pools, [&](const Pool& p) { return p.node_type == node_type && p.label == label; });
    return it != pools.end() ? *it : pools.emplace_back(Pool{node_type, label, {}, {}});
}

StudyRow make_row(Pool pool) {
    StudyRow row;
    row.key = parse_study_label(pool.label);
    row.node_type = std::move(pool.node_type);
    row.runs = pool.runs.size();
    row.warmup_failures = std::move(pool.warmup_failures);
    std::vector<RunSummary> ok;
    for (auto& run : pool.runs) {
        if (run_failed(run.run)) {
            row.failures.push_back(shell_code(run.run));
        } else {
            ok.push_back(std::move(run));
        }
    }
    if (!ok.empty()) {
        row.ok = aggregate_runs(pool.label, std::move(ok));
        row.shares = energy_shares(*row.ok, *row.ok);
    }
    return row;
}

// Index of value in order, appending it when new.
template <class T> std::size_t rank(std::vector<T>& order, const T& value) {
    const auto it = std::ranges::find(order, value);
    if (it == order.end()) {
        order.push_back(value);
        return order.size() - 1;
    }
    return static_cast<std::size_t>(it - order.begin());
}

// Rows of the same workload, then mode, then setting together (node types
// side by side); otherwise in order of first appearance.
void order_rows(std::vector<StudyRow>& rows) {
    std::vector<std::string> workloads;
    std::vector<std::string> modes;
    std::vector<std::string> settings;
    std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> keys;
    keys.reserve(rows.size());
    for (const auto& r : rows) {
        keys.emplace_back(rank(workloads, r.key.workload), rank(modes, r.key.mode),
                          rank(settings, r.key.setting));
    }
    std::vector<std::size_t> order(rows.size());
    // NOLINTNEXTLINE(modernize-use-ranges): libstdc++ 12 has no std::ranges::iota
    std::iota(order.begin(), order.end(), 0);
    std::ranges::stable_sort(order, {}, [&](std::size_t i) { return keys[i]; });
    std::vector<StudyRow> sorted;
    sorted.reserve(order.size());
    for (auto i : order) {
        sorted.push_back(std::move(rows[i]));
    }
    rows = std::move(sorted);
}

// Energy and runtime ratios to the first row of the same workload and mode,
// and of the same setting when there are several node types to compare.
void add_ratios(std::vector<StudyRow>& rows, bool by_setting) {
    const auto same = [&](const StudyRow& a, const StudyRow& b) {
        return a.key.workload == b.key.workload && a.key.mode == b.key.mode &&
               (!by_setting || a.key.setting == b.key.setting);
    };
    for (std::size_t i = 0, j = 0; i < rows.size(); i = j) {
        std::vector<RepeatSummary> groups;
        std::vector<StudyRow*> with;
        for (j = i; j < rows.size() && same(rows[i], rows[j]); ++j) {
            if (rows[j].ok) {
                groups.push_back(*rows[j].ok);
                with.push_back(&rows[j]);
            }
        }
        if (groups.size() < 2) {
            continue;
        }
        const auto c = compare_groups(groups, "");
        for (std::size_t k = 0; c && k < with.size(); ++k) {
            with[k]->energy_ratio = c->entries[k].energy_ratio;
            with[k]->runtime_ratio = c->entries[k].runtime_ratio;
        }
    }
}

} // namespace

std::string study_label(const StudyKey& key) {
    return key.workload + "/" + key.mode + (key.setting.empty() ? "" : "@" + key.setting);
}

StudyKey parse_study_label(std::string_view label) {
    const auto slash = label.find('/');
    const auto at = label.find('@', slash == std::string_view::npos ? 0 : slash);
    StudyKey key{std::string{label.substr(0, slash)}, {}, {}};
    if (slash != std::string_view::npos) {
        key.mode = label.substr(slash + 1, at == std::string_view::npos ? at : at - slash - 1);
        key.setting = at == std::string_view::npos ? "" : label.substr(at + 1);
    }
    const bool valid = is_study_name(key.workload) && is_study_name(key.mode) &&
                       (at == std::string_view::npos || is_study_name(key.setting));
    return valid ? key : StudyKey{std::string{label}, {}, {}};
}

Result<std::vector<StudyCell>> study_cells(const Study& study, const std::filesystem::path& dir) {
    const std::vector<StudySetting> implicit{StudySetting{}};
    std::vector<StudyCell> cells;
    for (const auto& setting : study.settings.empty() ? implicit : study.settings) {
        for (const auto& workload : study.workloads) {
            for (const auto& mode : workload.modes) {
                StudyKey key{workload.name, mode.name, setting.name};
                const auto values = values_of(study, dir, key, setting);
                if (auto r = check_placeholders(study, mode.command, values, key); !r) {
                    return std::unexpected(r.error());
                }
                auto command = substitute(mode.command, values);
                if (!command) {
                    return std::unexpected(command.error());
                }
                cells.push_back({key, study_label(key), std::move(*command)});
            }
        }
    }
    return cells;
}

TraceFacts trace_facts(const trace::Reader& reader) {
    TraceFacts facts{reader.path().stem().string(), {}};
    for (const char* key : {"host", "node_type"}) { // node_type wins
        if (const auto it = reader.meta().find(key);
            it != reader.meta().end() && !it->second.empty()) {
            facts.node_type = it->second;
        }
    }
    for (const auto& run : reader.runs()) {
        if (run.kind == "warmup" && run_failed(run)) {
            facts.failed_warmups.push_back(run);
        }
    }
    return facts;
}

std::vector<StudyShare> energy_shares(const FigureStats& figures, const RepeatSummary& group) {
    std::vector<StudyShare> out;
    const double node = figures.node_energy_j.mean;
    for (const auto& [part, energy] : figures.part_energy_j) {
        if (node <= 0) {
            break;
        }
        const auto name = share_name(group, part);
        auto it = std::ranges::find(out, name, &StudyShare::name);
        if (it == out.end()) {
            it = out.insert(out.end(), StudyShare{std::string{name}, 0});
        }
        it->fraction += energy.mean / node;
    }
    std::ranges::sort(out, {}, [](const StudyShare& s) {
        return std::ranges::find(k_share_order, s.name) - k_share_order.begin();
    });
    return out;
}

StudyTable study_table(std::vector<RepeatSummary> groups,
                       const std::map<std::string, TraceFacts>& traces) {
    std::vector<Pool> pools;
    for (auto& g : groups) {
        const auto it = g.traces.empty() ? traces.end() : traces.find(g.traces.front());
        auto& pool =
            pool_for(pools, it == traces.end() ? std::string{} : it->second.node_type, g.label);
        std::ranges::move(g.runs, std::back_inserter(pool.runs));
        std::ranges::move(g.left_out, std::back_inserter(pool.runs)); // counted as failures
    }
    StudyTable table;
    for (const auto& [path, facts] : traces) {
        table.traces.push_back(path);
        for (const auto& run : facts.failed_warmups) {
            pool_for(pools, facts.node_type, run.label).warmup_failures.push_back(shell_code(run));
        }
    }
    for (auto& p : pools) {
        if (std::ranges::find(table.node_types, p.node_type) == table.node_types.end()) {
            table.node_types.push_back(p.node_type);
        }
        table.rows.push_back(make_row(std::move(p)));
    }
    order_rows(table.rows);
    add_ratios(table.rows, table.node_types.size() > 1);
    return table;
}

Result<StudyTable> summarize_study(std::span<const std::filesystem::path> traces,
                                   const SummaryOptions& options) {
    auto groups = summarize_traces(traces, options, true);
    if (!groups) {
        return std::unexpected(groups.error());
    }
    std::map<std::string, TraceFacts> facts;
    for (const auto& path : traces) {
        auto reader = trace::Reader::open(path);
        if (!reader) {
            return std::unexpected(reader.error());
        }
        facts[path.string()] = trace_facts(*reader);
    }
    auto table = study_table(std::move(*groups), facts);
    table.traces.clear(); // in the order given
    for (const auto& path : traces) {
        table.traces.push_back(path.string());
    }
    return table;
}

} // namespace jp::report
