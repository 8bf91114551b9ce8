// SPDX-License-Identifier: BSD-3-Clause
#include "report/carbon.hpp"

#include "report/units.hpp"

#include <array>
#include <cmath>
#include <fmt/format.h>
#include <string_view>
#include <utility>

namespace jp::report {

std::optional<std::pair<double, double>> Footprint::range_of(double figure) const {
    if (!node_bound || node_j <= 0) {
        return std::nullopt;
    }
    return std::pair{figure * node_bound->low / node_j, figure * node_bound->high / node_j};
}

std::optional<Footprint>
footprint(double node_j, const CarbonConfig& factors, std::optional<Bound> node_bound) {
    const auto& c = factors;
    if (!c.any()) {
        return std::nullopt;
    }
    Footprint f;
    f.node_j = node_j;
    f.pue = c.pue.value_or(1.0);
    f.facility_j = node_j * f.pue;
    const double kwh = f.facility_j / k_joules_per_kwh;
    f.intensity_g_per_kwh = c.intensity_g_per_kwh;
    if (c.intensity_g_per_kwh) {
        f.kg_co2e = kwh * *c.intensity_g_per_kwh / 1000.0;
    }
    f.price_per_kwh = c.price_per_kwh;
    if (c.price_per_kwh) {
        f.cost = kwh * *c.price_per_kwh;
    }
    f.currency = c.currency.value_or("");
    f.node_bound = node_bound;
    return f;
}

namespace {

// Mass of CO2e in the unit that fits it: kg, g below 0.1 kg, mg below 0.1 g.
std::string mass_text(double kg) {
    if (std::fabs(kg) >= 0.1 || kg == 0) {
        return plain_number(kg) + " kg";
    }
    if (std::fabs(kg) >= 1e-4) {
        return plain_number(kg * 1e3) + " g";
    }
    // Fifteen decimals at most in plain figures: below, significant digits (not "0 mg").
    const double mg = kg * 1e6;
    return (std::fabs(mg) < 1e-9 ? fmt::format("{:.3g}", mg) : plain_number(mg)) + " mg";
}

// Under a hundredth of the currency, what a thousand, a million or a billion such runs cost,
// in figures a person reads: " (0.83 EUR a million runs)". A sweep's or a service's runs add up.
std::string per_many_runs(double cost, const std::string& currency) {
    if (!(cost > 0) || cost >= 0.01 || cost * 1e9 < 0.01) { // below a hundredth a billion runs:
        return {};                                          // an absurd price, said as given
    }
    constexpr std::array<std::pair<double, std::string_view>, 3> k_many{
        {{1e3, "a thousand"}, {1e6, "a million"}, {1e9, "a billion"}}};
    for (const auto& [n, words] : k_many) {
        if (cost * n >= 0.1 || n == k_many.back().first) {
            return fmt::format(" ({}{} {} runs)", plain_number(cost * n, 2), currency, words);
        }
    }
    return {};
}

} // namespace

std::string format_footprint(const Footprint& f) {
    const double kwh = f.facility_j / k_joules_per_kwh;
    std::string out = fmt::format(
        "facility energy {} ({} = node × PUE {:.2f})", energy_text(f.facility_j),
        kwh >= 0.01 || kwh == 0 ? plain_number(kwh) + " kWh" : plain_number(kwh * 1e3) + " Wh",
        f.pue);
    if (f.kg_co2e) {
        out +=
            fmt::format("; {} CO2e at {:g} g/kWh", mass_text(*f.kg_co2e), *f.intensity_g_per_kwh);
        if (const auto r = f.range_of(*f.kg_co2e); r && r->second > r->first) {
            out += fmt::format(" ({}–{} within the sensors' bound)", mass_text(r->first),
                               mass_text(r->second));
        }
    }
    if (f.cost) {
        const std::string cur = f.currency.empty() ? "" : " " + f.currency;
        // Fifteen decimals at most in plain figures; a smaller cost in significant digits.
        const auto cost =
            *f.cost > 0 && *f.cost < 1e-12 ? fmt::format("{:.3g}", *f.cost) : plain_number(*f.cost);
        out += fmt::format("; cost {}{}{} at {:g}{}/kWh", cost, cur, per_many_runs(*f.cost, cur),
                           *f.price_per_kwh, cur);
    }
    if (f.estimated) {
        out += f.lower_bound ? "; from an estimated node energy, a lower bound"
                             : "; from an estimated node energy";
    } else if (f.lower_bound) {
        out += "; lower bounds, as the node energy is";
    }
    return out;
}

CarbonConfig merged(const CarbonConfig& config, const CarbonConfig& overrides) {
    CarbonConfig c = config;
    if (overrides.intensity_g_per_kwh) {
        c.intensity_g_per_kwh = overrides.intensity_g_per_kwh;
    }
    if (overrides.pue) {
        c.pue = overrides.pue;
    }
    if (overrides.price_per_kwh) {
        c.price_per_kwh = overrides.price_per_kwh;
    }
    if (overrides.currency) {
        c.currency = overrides.currency;
    }
    return c;
}

} // namespace jp::report
