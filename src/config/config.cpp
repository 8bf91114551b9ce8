#include "config/config.hpp"

#include "sys/file.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

namespace jp {
namespace {

Error config_error(std::string_view origin, std::string_view key, std::string detail) {
    return Error{
        ErrorKind::config, std::string{origin} + ": " + std::string{key}, std::move(detail), {}};
}

template <class T>
Result<std::optional<T>>
get_number(const toml::table& t, std::string_view origin, std::string_view key, bool positive) {
    const auto* node = t.get(key);
    if (node == nullptr) {
        return std::optional<T>{};
    }
    std::optional<double> value;
    if (const auto* i = node->as_integer()) {
        value = static_cast<double>(i->get());
    } else if (const auto* f = node->as_floating_point()) {
        value = f->get();
    }
    if (!value) {
        return std::unexpected(config_error(origin, key, "must be a number"));
    }
    if (*value < 0 || (positive && *value == 0)) {
        return std::unexpected(config_error(origin, key, "must be positive"));
    }
    return std::optional<T>{static_cast<T>(*value)};
}

Result<void> parse_node(const toml::table& node, std::string_view origin, NodeModel& out) {
    const std::string o = std::string{origin} + " [node]";
    auto rated = get_number<double>(node, o, "rated_watts", true);
    auto rest = get_number<double>(node, o, "rest_watts", false);
    auto tdp = get_number<double>(node, o, "cpu_tdp_watts", true);
    auto idle = get_number<double>(node, o, "cpu_idle_fraction", false);
    auto threads = get_number<int>(node, o, "cpu_threads_per_socket", true);
    auto dram = get_number<double>(node, o, "dram_watts_per_gib", false);
    for (const auto* r : {&rated, &rest, &tdp, &idle, &dram}) {
        if (!*r) {
            return std::unexpected(r->error());
        }
    }
    if (!threads) {
        return std::unexpected(threads.error());
    }
    out.rated_watts = *rated;
    out.rest_watts = *rest;
    out.cpu_tdp_watts = *tdp;
    out.cpu_idle_fraction = *idle;
    out.cpu_threads_per_socket = *threads;
    out.dram_watts_per_gib = *dram;
    if (out.cpu_idle_fraction && *out.cpu_idle_fraction > 1.0) {
        return std::unexpected(config_error(o, "cpu_idle_fraction", "must be between 0 and 1"));
    }
    if (auto model = node["cpu_model"].value<std::string>()) {
        out.cpu_model = *model;
    }
    if (auto name = node["name"].value<std::string>()) {
        out.name = *name;
    }
    return {};
}

Result<void> parse_carbon(const toml::table& t, std::string_view origin, CarbonConfig& out) {
    const std::string o = std::string{origin} + " [carbon]";
    auto intensity = get_number<double>(t, o, "intensity_g_per_kwh", false);
    auto pue = get_number<double>(t, o, "pue", true);
    auto price = get_number<double>(t, o, "price_per_kwh", false);
    for (const auto* r : {&intensity, &pue, &price}) {
        if (!*r) {
            return std::unexpected(r->error());
        }
    }
    if (*pue && **pue < 1.0) {
        return std::unexpected(config_error(o, "pue", "must be at least 1 (facility / IT energy)"));
    }
    out.intensity_g_per_kwh = *intensity;
    out.pue = *pue;
    out.price_per_kwh = *price;
    if (const auto* c = t.get("currency")) {
        if (!c->is_string()) {
            return std::unexpected(config_error(o, "currency", "must be a string"));
        }
        out.currency = c->value<std::string>();
    }
    return {};
}

Result<void> parse_report(const toml::table& t, std::string_view origin, ReportConfig& out) {
    const std::string o = std::string{origin} + " [report]";
    auto idle = get_number<double>(t, o, "idle_util_percent", false);
    auto threshold = get_number<double>(t, o, "threshold_watts", true);
    for (const auto* r : {&idle, &threshold}) {
        if (!*r) {
            return std::unexpected(r->error());
        }
    }
    if (*idle && **idle > 100.0) {
        return std::unexpected(config_error(o, "idle_util_percent", "must be between 0 and 100"));
    }
    out.idle_util_percent = *idle;
    out.threshold_watts = *threshold;
    return {};
}

Result<void> parse_sensors(const toml::table& sensors, std::string_view origin, Config& out) {
    for (const auto& [key, value] : sensors) {
        const auto* t = value.as_table();
        const std::string where = std::string{origin} + " [sensors." + std::string{key.str()} + "]";
        if (t == nullptr) {
            return std::unexpected(config_error(where, "", "must be a table"));
        }
        if (auto interval = (*t)["interval"].value<std::string>()) {
            auto d = parse_duration(*interval);
            if (!d) {
                return std::unexpected(config_error(where, "interval", d.error().message()));
            }
            out.intervals.emplace(std::string{key.str()}, *d);
        }
        if (auto enabled = (*t)["enabled"].value<bool>(); enabled && !*enabled) {
            out.disabled.emplace(key.str());
        }
        if (auto lib = (*t)["library"].value<std::string>()) {
            if (key.str() == "nvml") {
                out.nvml_library = *lib;
            } else if (key.str() == "rocm_smi") {
                out.rocm_library = *lib;
            }
        }
    }
    return {};
}

} // namespace

Result<Config> parse_config(std::string_view toml_text, std::string_view origin) {
    toml::table root;
    try {
        root = toml::parse(toml_text, origin);
    } catch (const toml::parse_error& err) {
        return fail(ErrorKind::config, std::string{origin},
                    fmt::format("line {}: {}", err.source().begin.line, err.description()));
    }
    Config config;
    if (const auto* node = root["node"].as_table()) {
        if (auto r = parse_node(*node, origin, config.node); !r) {
            return std::unexpected(r.error());
        }
    }
    if (const auto* carbon = root["carbon"].as_table()) {
        if (auto r = parse_carbon(*carbon, origin, config.carbon); !r) {
            return std::unexpected(r.error());
        }
    }
    if (const auto* report = root["report"].as_table()) {
        if (auto r = parse_report(*report, origin, config.report); !r) {
            return std::unexpected(r.error());
        }
    }
    if (const auto* sensors = root["sensors"].as_table()) {
        if (auto r = parse_sensors(*sensors, origin, config); !r) {
            return std::unexpected(r.error());
        }
    }
    if (auto root_dir = root["sysfs_root"].value<std::string>()) {
        config.sysfs_root = *root_dir;
    }
    return config;
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
