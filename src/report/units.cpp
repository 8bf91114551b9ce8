// SPDX-License-Identifier: BSD-3-Clause
#include "report/units.hpp"

#include "core/duration.hpp"
#include "report/format.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <optional>

namespace jp::report {

EnergyUnit energy_unit(double max_joules) noexcept {
    const double a = std::isfinite(max_joules) ? std::abs(max_joules) : 0.0;
    if (a < 1e3) {
        return {"J", 1.0, a < 10 ? 3 : a < 100 ? 2 : 1};
    }
    if (a < 1e7) {
        return {"kJ", 1e-3, 3};
    }
    return {"MJ", 1e-6, 3};
}

namespace {

// The unit a figure is given in where the column's would show it with too few significant
// digits: its own, named. In a column of a larger unit below three digits (a 0.5 J phase is
// "0.001" in a kJ column, twice its size; 11.2 J is "0.011"); in a J column with fewer
// decimals than it needs, below two (0.04 J is "0.0" where the column has one decimal).
std::optional<EnergyUnit> own_unit(double mean, const EnergyUnit& u) {
    if (mean == 0 || !std::isfinite(mean)) {
        return std::nullopt;
    }
    const auto own = energy_unit(mean);
    const double shown = std::abs(mean * u.per_joule);
    const bool smaller_unit = own.name != u.name && own.per_joule > u.per_joule;
    if ((smaller_unit && shown < std::pow(10.0, 2 - u.digits)) ||
        (own.name == u.name && own.digits > u.digits && shown < std::pow(10.0, 1 - u.digits))) {
        return own;
    }
    return std::nullopt;
}

} // namespace

std::string energy_pm(const Stat& s, const EnergyUnit& u) {
    if (const auto own = own_unit(s.mean, u)) {
        return pm(s, own->per_joule, own->digits) + " " + std::string{own->name};
    }
    return pm(s, u.per_joule, u.digits);
}

std::string sensor_pm(const Stat& s, const EnergyUnit& u) {
    if (!s.sensor) {
        return "-";
    }
    if (s.sensor->half_width() > std::abs(s.mean)) {
        return "n/m";
    }
    // In the unit the figure beside it is given in, named where that is not the column's.
    const auto own = own_unit(s.mean, u);
    const auto& in = own ? *own : u;
    const std::string name = own ? " " + std::string{own->name} : "";
    const double least = std::pow(10.0, -in.digits);
    const auto text = [&](double joules) {
        const double shown = joules * in.per_joule;
        return shown < 0.5 * least ? fmt::format("<{:.{}f}", least, in.digits)
                                   : fmt::format("{:.{}f}", shown, in.digits);
    };
    // A bound far from centred on the figure (a channel lost part-way, a cut at zero) is
    // given by its two sides: half its width would promise what one side cannot hold.
    const double above = std::max(s.sensor->high - s.mean, 0.0);
    const double below = std::max(s.mean - s.sensor->low, 0.0);
    if (std::min(above, below) < 0.5 * std::max(above, below)) {
        return fmt::format("+{}/−{}{}", text(above), text(below), name);
    }
    return text(s.sensor->half_width()) + name;
}

std::string energy_text(double joules) {
    const auto u = energy_unit(joules);
    return fmt::format("{:.{}f} {}", joules * u.per_joule, u.digits, u.name);
}

std::string energy_text(const Stat& s) {
    const auto u = energy_unit(s.mean);
    return energy_pm(s, u) + " " + std::string{u.name};
}

std::string energy_range_text(double low, double high) {
    const auto u = energy_unit(std::max(std::abs(low), std::abs(high)));
    // Rounded outward, so the range shown holds the range: its low end down, its high end up,
    // but for a twentieth of the last digit (3199.99 J is 3.200 kJ, not 3.199: a bound's
    // arithmetic leaves such crumbs). +0.0 turns a -0 into 0.
    const auto end = [&](double joules, int digits, bool up) {
        const double scale = std::pow(10.0, digits);
        const double v = joules * u.per_joule * scale;
        const double r = (up ? std::ceil(v - 0.05) : std::floor(v + 0.05)) / scale;
        return fmt::format("{:.{}f}", r + 0.0, digits);
    };
    std::string a;
    std::string b;
    for (int digits = u.digits; digits <= 9; ++digits) {
        a = end(low, digits, false);
        b = end(high, digits, true);
        if (a != b || !(low < high)) {
            break;
        }
    }
    return fmt::format("{}–{} {}", a, b, u.name);
}

std::string runtime_text(double seconds) {
    if (std::isfinite(seconds) && seconds < 60) {
        return fmt::format("{:.3f} s", seconds);
    }
    return format_hms(seconds);
}

std::string runtime_pm(const Stat& s) {
    if (s.n < 2) {
        return runtime_text(s.mean);
    }
    if (s.mean < 60) {
        return fmt::format("{:.3f} ± {:.3f} s", s.mean, s.std);
    }
    return fmt::format("{} ± {:.1f} s", format_hms(s.mean), s.std);
}

std::string plain_number(double v, int significant) {
    // Beyond a quadrillion the digits say nothing more (a mistyped factor): 4 significant.
    if (v == 0 || !std::isfinite(v) || std::fabs(v) >= 1e15) {
        return fmt::format("{:.{}g}", v, significant);
    }
    const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
    const int decimals = std::clamp(significant - 1 - magnitude, 0, 15);
    auto out = fmt::format("{:.{}f}", v, decimals);
    if (out.find('.') != std::string::npos) {
        out.erase(out.find_last_not_of('0') + 1);
        if (out.back() == '.') {
            out.pop_back();
        }
    }
    return out;
}

} // namespace jp::report
