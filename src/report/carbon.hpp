// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Node energy into facility energy (× PUE), emissions (× grid carbon intensity)
// and cost (× price). Nothing is assumed: with no factor configured there is no figure.
#include "config/config.hpp"
#include "report/bound.hpp"

#include <optional>
#include <string>
#include <utility>

namespace jp::report {

struct Footprint {
    double node_j = 0;
    double pue = 1.0;
    double facility_j = 0; // node_j × pue
    std::optional<double> intensity_g_per_kwh;
    std::optional<double> kg_co2e; // facility kWh × intensity / 1000
    std::optional<double> price_per_kwh;
    std::optional<double> cost; // facility kWh × price
    std::string currency;
    // The sensors' bound on node_j, where it has one: every figure above is
    // node_j times a factor, so each has the bound times the same factor.
    std::optional<Bound> node_bound;
    // What node_j is (and so every figure above): an estimate, or a lower bound (the sum of
    // the node's parts, the rest unmetered). Said beside the figures, as beside the node's.
    bool estimated = false;
    bool lower_bound = false;
    // figure (facility_j, kg_co2e or cost) at the bound's ends: {low, high}.
    [[nodiscard]] std::optional<std::pair<double, double>> range_of(double figure) const;
};

inline constexpr double k_joules_per_kwh = 3.6e6;

// nullopt when no factor (intensity, PUE, price) is set.
[[nodiscard]] std::optional<Footprint>
footprint(double node_j, const CarbonConfig& factors, std::optional<Bound> node_bound = {});

// "facility energy 443.5 kJ (0.123 kWh = node × PUE 1.20); 0.047 kg CO2e at 380 g/kWh; cost
// 0.03 EUR at 0.25 EUR/kWh"
[[nodiscard]] std::string format_footprint(const Footprint& f);

// Command-line values take precedence over the config file.
[[nodiscard]] CarbonConfig merged(const CarbonConfig& config, const CarbonConfig& overrides);

} // namespace jp::report
