// SPDX-License-Identifier: BSD-3-Clause
#include "report/difference.hpp"

#include "report/units.hpp"

#include <array>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace jp::report {
namespace {

// Student's t for a two-sided 95 % interval with df degrees of freedom.
double t95(std::size_t df) {
    constexpr std::array<double, 30> k_t{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                         2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                         2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                         2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    return df >= 1 && df <= k_t.size() ? k_t.at(df - 1) : 1.960;
}

// A factor in two significant digits: 95, 140000 (not 138147: the ends of a range that wide
// are not known to the unit).
std::string factor_text(double v) {
    if (!std::isfinite(v) || v < 100) {
        return plain_number(v, 2);
    }
    const double step = std::pow(10.0, std::floor(std::log10(v)) - 1);
    return fmt::format("{:.0f}", std::round(v / step) * step);
}

// A fraction in per cent: whole under a hundred's resolution, one decimal below 1 % (a verdict
// "more" read "0–50 %").
std::string percent_text(double fraction) {
    const double pc = fraction * 100;
    return std::abs(pc) < 1 ? fmt::format("{:.1f}", pc) : fmt::format("{:.0f}", pc);
}

// "95–110", or "about 2" where both ends read the same.
std::string factor_range(double low, double high) {
    const auto a = factor_text(low);
    const auto b = factor_text(high);
    return a == b ? "about " + a : a + "–" + b;
}

} // namespace

MeanRange mean_range(const Stat& s) {
    MeanRange r{s.mean, s.mean, s.n >= 2, s.sensor.has_value()};
    if (s.sensor) {
        r.low = std::min(s.sensor->low, s.mean);
        r.high = std::max(s.sensor->high, s.mean);
    }
    if (s.n >= 2) {
        const double half = t95(s.n - 1) * s.std / std::sqrt(static_cast<double>(s.n));
        r.low -= half;
        r.high += half;
    }
    r.low = std::max(r.low, 0.0);
    return r;
}

Difference difference(const Stat& x, const Stat& baseline) {
    const auto a = mean_range(x);
    const auto b = mean_range(baseline);
    Difference d;
    d.ratio_low = b.high > 0 ? a.low / b.high : 0;
    d.ratio_high = b.low > 0 ? a.high / b.low : std::numeric_limits<double>::infinity();
    d.verdict = d.ratio_high < 1 ? Verdict::less : d.ratio_low > 1 ? Verdict::more : Verdict::same;
    d.runs_known = a.runs_known && b.runs_known;
    d.sensor_known = a.sensor_known && b.sensor_known;
    return d;
}

std::string difference_text(const Difference& d, std::string_view baseline) {
    std::string out;
    switch (d.verdict) {
    case Verdict::less:
        // In per cent while the nearer end is within half; beyond, a factor: "99–100 % less"
        // said nothing of a hundredfold.
        if (d.ratio_high <= 0) {
            out = fmt::format("no energy at all, against {}'s", baseline);
        } else if (d.ratio_high > 0.5) {
            out = fmt::format("{}–{} % less energy than {}", percent_text(1 - d.ratio_high),
                              percent_text(1 - d.ratio_low), baseline);
        } else if (d.ratio_low > 0) {
            out = fmt::format("{} × less energy than {}",
                              factor_range(1 / d.ratio_high, 1 / d.ratio_low), baseline);
        } else {
            out = fmt::format("at least {} × less energy than {}", factor_text(1 / d.ratio_high),
                              baseline);
        }
        break;
    case Verdict::more:
        // From twice, a factor; in per cent below, up to a factor where the far end is tenfold.
        if (d.ratio_low >= 2) {
            out = std::isfinite(d.ratio_high)
                      ? fmt::format("{} × the energy of {}",
                                    factor_range(d.ratio_low, d.ratio_high), baseline)
                      : fmt::format("at least {} × the energy of {}", factor_text(d.ratio_low),
                                    baseline);
        } else if (d.ratio_high < 10) {
            out = fmt::format("{}–{} % more energy than {}", percent_text(d.ratio_low - 1),
                              percent_text(d.ratio_high - 1), baseline);
        } else {
            out = std::isfinite(d.ratio_high)
                      ? fmt::format("{} % more to {} × the energy of {}",
                                    percent_text(d.ratio_low - 1), factor_text(d.ratio_high),
                                    baseline)
                      : fmt::format("at least {} % more energy than {}",
                                    percent_text(d.ratio_low - 1), baseline);
        }
        break;
    case Verdict::same:
        if (std::isfinite(d.ratio_high)) {
            out = fmt::format("no difference beyond the runs' spread and the sensors' bound "
                              "({:.2f}–{:.2f} × {})",
                              d.ratio_low, d.ratio_high, baseline);
        } else if (d.ratio_low > 0) {
            out = fmt::format("no difference beyond the runs' spread and the sensors' bound "
                              "(at least {:.2f} × {})",
                              d.ratio_low, baseline);
        } else { // "(at least 0.00 × a)" said nothing
            out = fmt::format("no difference beyond the runs' spread and the sensors' bound "
                              "({}'s range reaches 0 J)",
                              baseline);
        }
        break;
    }
    if (!d.runs_known) {
        out += "; one run on a side: the variation between runs is not in it (use -r)";
    }
    if (!d.sensor_known) {
        out += "; without a sensor bound on a side (a model, power readings or an attributed "
               "share)";
    }
    return out;
}

std::string_view to_string(Verdict v) noexcept {
    switch (v) {
    case Verdict::less:
        return "less";
    case Verdict::more:
        return "more";
    case Verdict::same:
        return "same";
    }
    return "same";
}

} // namespace jp::report
