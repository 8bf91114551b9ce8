// SPDX-License-Identifier: BSD-3-Clause
#include "config/config_toml.hpp"
#include "config/sources_parse.hpp"
#include "config/toml_scope.hpp"
#include "core/text.hpp"
#include "sys/file.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>

namespace jp {
namespace {

// Every backend a [sensors.NAME] table may name (src/sensors/registry.cpp).
constexpr std::array<std::string_view, 12> k_backend_names{
    "replay", "powercap", "perf_rapl", "nvml",  "rocm_smi",   "pm_counters",
    "hwmon",  "ipmi",     "redfish",   "slurm", "jouleprofd", "estimate"};

using Scope = TomlScope;

// Assigns the numbers of `keys` in order to `targets` (same length).
template <class... T>
Result<void> numbers(const Scope& s, bool positive, std::pair<std::string_view, T*>... fields) {
    Result<void> out;
    auto one = [&](std::string_view key, auto* target) {
        if (!out) {
            return;
        }
        auto v = s.number(key, positive);
        if (!v) {
            out = std::unexpected(v.error());
        } else if (*v) {
            *target = static_cast<std::remove_reference_t<decltype(**target)>>(**v);
        }
    };
    (one(fields.first, fields.second), ...);
    return out;
}

Result<void> parse_node(const Scope& s, NodeModel& out) {
    if (auto r = s.only({"name", "rated_watts", "rest_watts", "cpu_model", "cpu_tdp_watts",
                         "cpu_idle_fraction", "cpu_threads_per_socket", "dram_watts_per_gib"});
        !r) {
        return r;
    }
    if (auto r = numbers(
            s, true, std::pair{std::string_view{"rated_watts"}, &out.rated_watts},
            std::pair{std::string_view{"cpu_tdp_watts"}, &out.cpu_tdp_watts},
            std::pair{std::string_view{"cpu_threads_per_socket"}, &out.cpu_threads_per_socket});
        !r) {
        return r;
    }
    if (auto r =
            numbers(s, false, std::pair{std::string_view{"rest_watts"}, &out.rest_watts},
                    std::pair{std::string_view{"cpu_idle_fraction"}, &out.cpu_idle_fraction},
                    std::pair{std::string_view{"dram_watts_per_gib"}, &out.dram_watts_per_gib});
        !r) {
        return r;
    }
    if (out.cpu_idle_fraction && *out.cpu_idle_fraction > 1.0) {
        return s.error(*s.table.get("cpu_idle_fraction"), "cpu_idle_fraction",
                       "must be between 0 and 1");
    }
    auto model = s.string("cpu_model");
    auto name = s.string("name");
    if (!model || !name) {
        return std::unexpected(!model ? model.error() : name.error());
    }
    out.cpu_model = *model;
    out.name = *name;
    return {};
}

Result<void> parse_carbon(const Scope& s, CarbonConfig& out) {
    if (auto r = s.only({"intensity_g_per_kwh", "pue", "price_per_kwh", "currency"}); !r) {
        return r;
    }
    if (auto r = numbers(
            s, false, std::pair{std::string_view{"intensity_g_per_kwh"}, &out.intensity_g_per_kwh},
            std::pair{std::string_view{"price_per_kwh"}, &out.price_per_kwh});
        !r) {
        return r;
    }
    if (auto r = numbers(s, true, std::pair{std::string_view{"pue"}, &out.pue}); !r) {
        return r;
    }
    if (out.pue && (*out.pue < 1.0 || *out.pue > 10.0)) {
        return s.error(*s.table.get("pue"), "pue",
                       "must be between 1 and 10 (facility / IT energy; 1.1 to 2 in practice)");
    }
    auto currency = s.string("currency");
    if (!currency) {
        return std::unexpected(currency.error());
    }
    out.currency = *currency;
    return {};
}

Result<void> parse_report(const Scope& s, ReportConfig& out) {
    if (auto r = s.only({"idle_util_percent", "threshold_watts"}); !r) {
        return r;
    }
    if (auto r = numbers(s, false,
                         std::pair{std::string_view{"idle_util_percent"}, &out.idle_util_percent});
        !r) {
        return r;
    }
    if (auto r =
            numbers(s, true, std::pair{std::string_view{"threshold_watts"}, &out.threshold_watts});
        !r) {
        return r;
    }
    if (out.idle_util_percent && *out.idle_util_percent > 100.0) {
        return s.error(*s.table.get("idle_util_percent"), "idle_util_percent",
                       "must be between 0 and 100");
    }
    return {};
}

Result<void> parse_attribution(const Scope& s, AttributionConfig& out) {
    if (auto r = s.only({"enabled", "idle_watts", "job_cpu"}); !r) {
        return r;
    }
    auto job_cpu = s.string("job_cpu");
    if (!job_cpu) {
        return std::unexpected(job_cpu.error());
    }
    if (*job_cpu) {
        constexpr std::array<std::string_view, 4> k_ways{"auto", "cgroup-v1", "cgroup-v2",
                                                         "process-tree"};
        if (std::ranges::find(k_ways, **job_cpu) == k_ways.end()) {
            return s.error(*s.table.get("job_cpu"), "job_cpu",
                           fmt::format("must be one of {}", joined(k_ways)));
        }
        out.job_cpu = **job_cpu;
    }
    auto enabled = s.boolean("enabled");
    if (!enabled) {
        return std::unexpected(enabled.error());
    }
    out.enabled = enabled->value_or(true);
    auto idle = s.table_at("idle_watts");
    if (!idle) {
        return std::unexpected(idle.error());
    }
    if (*idle) {
        for (const auto& [key, value] : (*idle)->table) {
            auto w = (*idle)->number(key.str(), false);
            if (!w) {
                return std::unexpected(w.error());
            }
            if (key.str().empty() || text_problem(key.str()) != nullptr || key.str().size() > 64) {
                return s.error(value, key.str(), "is not a channel name");
            }
            out.idle_watts.emplace(std::string{key.str()}, **w);
        }
    }
    return {};
}

// [sensors.perf_rapl] kernel_sampling (bool) and drain (a duration from 1 ms to 1 s: the
// kernel's ring holds 8 s at 1 ms, for a trace writer that stalls on the drain's thread).
Result<void> parse_kernel_sampling(const Scope& s, Config& out) {
    auto kernel = s.boolean("kernel_sampling");
    if (!kernel) {
        return std::unexpected(kernel.error());
    }
    out.kernel_sampling = kernel->value_or(true);
    Nanos drain{0};
    if (auto r = s.duration("drain", std::chrono::milliseconds{1}, drain, std::chrono::seconds{1});
        !r) {
        return r;
    }
    if (drain.count() > 0) {
        out.kernel_drain = drain;
    }
    return {};
}

Result<void> parse_backend(const Scope& s, std::string_view backend, Config& out) {
    const bool has_library = backend == "nvml" || backend == "rocm_smi";
    std::vector<std::string_view> allowed{"enabled"};
    if (backend != "jouleprofd") {
        allowed.emplace_back("interval");
    }
    if (has_library) {
        allowed.emplace_back("library");
    }
    if (backend == "nvml") {
        allowed.emplace_back("anchor");
    }
    if (backend == "jouleprofd") {
        allowed.emplace_back("socket");
    }
    if (backend == "perf_rapl") {
        allowed.insert(allowed.end(), {"kernel_sampling", "drain"});
    }
    const auto extra = source_keys(backend);
    allowed.insert(allowed.end(), extra.begin(), extra.end());
    if (auto r = s.only(allowed); !r) {
        return r;
    }

    auto interval = s.string("interval");
    auto enabled = s.boolean("enabled");
    auto library = s.string("library");
    auto socket = s.string("socket");
    auto anchor = s.string("anchor");
    for (const auto* r : {&interval, &library, &socket, &anchor}) {
        if (!*r) {
            return std::unexpected(r->error());
        }
    }
    if (!enabled) {
        return std::unexpected(enabled.error());
    }
    Nanos every{0};
    if (auto r = s.duration("interval", Nanos{1}, every); !r) {
        return r;
    }
    if (every.count() > 0) {
        out.intervals.emplace(std::string{backend}, every);
    }
    if (*anchor && **anchor == "off") {
        out.nvml_anchor = Nanos{0};
    } else if (Nanos d{0}; *anchor) {
        if (auto r = s.duration("anchor", Nanos{1}, d); !r) {
            auto e = r.error();
            e.detail += " (or \"off\")";
            return std::unexpected(std::move(e));
        }
        out.nvml_anchor = d;
    }
    if (backend == "perf_rapl") {
        if (auto r = parse_kernel_sampling(s, out); !r) {
            return r;
        }
    }
    if (*enabled && !**enabled) {
        out.disabled.emplace(backend);
    } else if (auto r = parse_source(s, backend, out); !r) {
        return r; // a disabled source needs none of its settings
    }
    if (*library) {
        (backend == "nvml" ? out.nvml_library : out.rocm_library) = **library;
    }
    if (*socket) {
        out.daemon_socket = **socket;
    }
    return {};
}

Result<void> parse_sensors(const Scope& s, Config& out) {
    for (const auto& [key, value] : s.table) {
        if (std::ranges::find(k_backend_names, key.str()) == k_backend_names.end()) {
            return s.error(
                value, key.str(),
                fmt::format("unknown sensor backend (known: {})", joined(k_backend_names)));
        }
        const auto* t = value.as_table();
        if (t == nullptr) {
            return s.error(value, key.str(), "must be a table");
        }
        const Scope backend{s.origin, *t, "[sensors." + std::string{key.str()} + "]"};
        if (auto r = parse_backend(backend, key.str(), out); !r) {
            return r;
        }
    }
    return {};
}

template <class Fn> Result<void> section(const Scope& root, std::string_view key, Fn parse) {
    auto t = root.table_at(key);
    if (!t) {
        return std::unexpected(t.error());
    }
    return *t ? parse(**t) : Result<void>{};
}

} // namespace

Result<Config> config_from_table(const toml::table& root,
                                 std::string_view origin,
                                 std::span<const std::string_view> extra_tables) {
    const Scope top{origin, root, "top level"};
    for (const auto& [key, value] : root) {
        const auto k = key.str();
        const bool known = k == "node" || k == "carbon" || k == "report" || k == "sensors" ||
                           k == "attribution" || k == "sysfs_root" ||
                           std::ranges::find(extra_tables, k) != extra_tables.end();
        if (!known) {
            std::vector<std::string_view> all{"node",    "carbon",      "report",
                                              "sensors", "attribution", "sysfs_root"};
            all.insert(all.end(), extra_tables.begin(), extra_tables.end());
            return top.error(value, k, fmt::format("unknown key (known here: {})", joined(all)));
        }
    }
    Config config;
    for (auto r :
         {section(top, "node", [&](const Scope& s) { return parse_node(s, config.node); }),
          section(top, "carbon", [&](const Scope& s) { return parse_carbon(s, config.carbon); }),
          section(top, "report", [&](const Scope& s) { return parse_report(s, config.report); }),
          section(top, "attribution",
                  [&](const Scope& s) { return parse_attribution(s, config.attribution); }),
          section(top, "sensors", [&](const Scope& s) { return parse_sensors(s, config); })}) {
        if (!r) {
            return std::unexpected(r.error());
        }
    }
    auto root_dir = top.string("sysfs_root");
    if (!root_dir) {
        return std::unexpected(root_dir.error());
    }
    if (*root_dir) {
        config.sysfs_root = **root_dir;
    }
    return config;
}

Result<toml::table> parse_toml(std::string_view toml_text, std::string_view origin) {
    try {
        return toml::parse(toml_text, origin);
    } catch (const toml::parse_error& err) {
        return fail(ErrorKind::config, std::string{origin},
                    fmt::format("line {}: {}", err.source().begin.line, err.description()));
    }
}

Result<Config> parse_config(std::string_view toml_text, std::string_view origin) {
    auto root = parse_toml(toml_text, origin);
    if (!root) {
        return std::unexpected(root.error());
    }
    return config_from_table(*root, origin, {});
}

Result<Config> load_config(const std::filesystem::path& path) {
    auto text = sys::read_text(path);
    if (!text) {
        return std::unexpected(text.error());
    }
    auto config = parse_config(*text, path.string());
    if (config) {
        config->source = path;
    }
    return config;
}

} // namespace jp
