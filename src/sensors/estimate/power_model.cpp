// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/estimate/power_model.hpp"

#include "config/config.hpp"
#include "sensors/estimate/cpu_models.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <optional>

namespace jp::sensors::estimate {
namespace {

// A figure and where it came from, for the channel source.
struct Figure {
    double value = 0;
    std::string origin;
};

// A configured value if present and within [low, high]; otherwise nullopt (with a
// note when present but out of range).
std::optional<double> configured(std::optional<double> value,
                                 std::string_view key,
                                 double low,
                                 double high,
                                 std::vector<std::string>& notes) {
    if (!value) {
        return std::nullopt;
    }
    if (!std::isfinite(*value) || *value < low || *value > high) {
        notes.push_back(fmt::format("estimate: config [node] {} = {} ignored (must be in [{}, {}])",
                                    key, *value, low, high));
        return std::nullopt;
    }
    return value;
}

std::optional<double> configured_threads(const NodeModel& cfg, std::vector<std::string>& notes) {
    if (!cfg.cpu_threads_per_socket) {
        return std::nullopt;
    }
    return configured(static_cast<double>(*cfg.cpu_threads_per_socket), "cpu_threads_per_socket", 1,
                      1e6, notes);
}

struct Figures {
    Figure tdp;
    Figure idle;
    Figure threads;
    bool generic = false; // neither a table row nor a configured TDP
};

// Config first, then the table row (may be null), then the generic per-thread figure;
// visible_per_socket is what a generic socket is assumed to hold.
Figures choose_figures(const NodeModel& cfg,
                       const CpuModelRow* row,
                       double visible_per_socket,
                       std::vector<std::string>& notes) {
    Figures f;
    f.threads = {visible_per_socket, "all sockets assumed visible"};
    if (auto t = configured_threads(cfg, notes)) {
        f.threads = {*t, "config"};
    } else if (row != nullptr) {
        f.threads = {static_cast<double>(row->threads_per_socket), std::string{row->source}};
    }
    f.tdp = {k_generic_watts_per_thread * f.threads.value,
             fmt::format("generic {:g} W/thread", k_generic_watts_per_thread)};
    const auto tdp = configured(cfg.cpu_tdp_watts, "cpu_tdp_watts", 1e-3, 1e5, notes);
    if (tdp) {
        f.tdp = {*tdp, "config"};
    } else if (row != nullptr) {
        f.tdp = {row->tdp_watts, std::string{row->source}};
    }
    f.idle = {k_default_idle_fraction, "default"};
    if (auto idle = configured(cfg.cpu_idle_fraction, "cpu_idle_fraction", 0, 1, notes)) {
        f.idle = {*idle, "config"};
    }
    f.generic = row == nullptr && !tdp;
    return f;
}

std::string share_text(const CpuPowerModel& m, const CpuFacts& facts, int visible) {
    if (facts.virtual_machine) {
        return fmt::format("VM sees {} of {:g} threads/socket -> {:.3g} socket(s)", visible,
                           m.threads_per_socket, m.share);
    }
    return fmt::format("{} of {:g} threads/socket online, {} socket(s) powered", visible,
                       m.threads_per_socket * m.share, facts.sockets);
}

void describe(CpuPowerModel& m, const CpuFacts& facts, int visible, const Figures& f) {
    m.source = fmt::format("model: {}, TDP {:g} W/socket ({}), idle {:g} % of TDP ({}), "
                           "{:g} threads/socket ({}); {}",
                           m.name, f.tdp.value, f.tdp.origin, f.idle.value * 100, f.idle.origin,
                           f.threads.value, f.threads.origin, share_text(m, facts, visible));
}

} // namespace

double CpuPowerModel::watts(double busy) const noexcept {
    const double u = std::clamp(busy, 0.0, 1.0);
    return share * tdp_watts * (idle_fraction + (1.0 - idle_fraction) * u);
}

CpuPowerModel resolve_cpu_model(const CpuFacts& facts,
                                int visible_cpus,
                                const NodeModel* overrides,
                                std::vector<std::string>& notes) {
    const NodeModel none{};
    const NodeModel& cfg = overrides != nullptr ? *overrides : none;
    const std::string detected = cfg.cpu_model.value_or(facts.model_name);
    const CpuModelRow* row = find_cpu_model(detected);
    const double sockets = std::max(1, facts.sockets);
    const double visible = std::max(1, visible_cpus);
    const auto f = choose_figures(cfg, row, visible / sockets, notes);

    CpuPowerModel m;
    m.detected = detected;
    m.generic = f.generic;
    if (m.generic) {
        m.name = fmt::format("generic (no table row matches '{}')", detected);
    } else {
        m.name = row != nullptr     ? std::string{row->name}
                 : detected.empty() ? "unknown CPU"
                                    : detected;
    }
    m.tdp_watts = f.tdp.value;
    m.threads_per_socket = f.threads.value;
    m.idle_fraction = f.idle.value;
    m.share = facts.virtual_machine ? std::min(visible / f.threads.value, sockets) : sockets;
    describe(m, facts, visible_cpus, f);
    return m;
}

} // namespace jp::sensors::estimate
