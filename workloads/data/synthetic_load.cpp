// SPDX-License-Identifier: BSD-3-Clause
#include "data/synthetic_load.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <numbers>

namespace jp::workload {

std::uint64_t SplitMix::next() {
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31U);
}

double SplitMix::uniform() {
    return static_cast<double>(next() >> 11U) * 0x1.0p-53;
}

double SplitMix::gaussian() {
    const double u1 = 1.0 - uniform(); // (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

namespace {

// The load of one country at hour h (hours since the epoch, UTC).
struct CountryModel {
    double base_mw;
    double winter;    // relative yearly swing, peak in mid-January
    double daily;     // relative daily swing
    double weekend;   // relative drop on Saturday (Sunday drops 1.5×)
    int utc_offset_h; // local time of the daily cycle
};

double load_at(const CountryModel& m, std::int64_t h, double noise) {
    constexpr double two_pi = 2.0 * std::numbers::pi;
    const auto local = h + m.utc_offset_h;
    const double hour = static_cast<double>(((local % 24) + 24) % 24);
    const auto day = (local >= 0 ? local : local - 23) / 24;
    const auto weekday = ((day + 3) % 7 + 7) % 7; // 0 = Monday (1970-01-01 was a Thursday)
    const double year_phase = std::fmod(static_cast<double>(day) / 365.2425, 1.0);
    const double yearly = 1.0 + m.winter * std::cos(two_pi * (year_phase - 15.0 / 365.0));
    // Morning ramp, midday plateau, evening peak, night trough.
    const double daily = 1.0 + m.daily * (0.6 * std::sin(two_pi * (hour - 9.0) / 24.0) +
                                          0.4 * std::sin(2.0 * two_pi * (hour - 5.0) / 24.0));
    const double week = weekday == 5 ? 1.0 - m.weekend : weekday == 6 ? 1.0 - 1.5 * m.weekend : 1.0;
    return m.base_mw * yearly * daily * week * (1.0 + noise);
}

} // namespace

std::vector<LoadSeries> synthetic_load(const SyntheticLoadOptions& o) {
    std::vector<LoadSeries> out;
    const auto first = hour_of_year_start(o.from_year);
    const auto last = hour_of_year_start(o.to_year + 1);
    const auto countries = static_cast<std::uint64_t>(std::max(o.countries, 0));
    for (std::uint64_t c = 0; c < countries; ++c) {
        SplitMix rng{o.seed * 1000003ULL + c};
        const CountryModel m{3000.0 + 9000.0 * rng.uniform(), 0.08 + 0.15 * rng.uniform(),
                             0.10 + 0.10 * rng.uniform(), 0.06 + 0.06 * rng.uniform(),
                             static_cast<int>(rng.next() % 3)};
        LoadSeries s;
        s.country = fmt::format("s{}", c + 1);
        s.first_hour = first;
        s.mw.reserve(static_cast<std::size_t>(last - first));
        double weather = 0; // AR(1): slow, correlated deviations like weather
        for (auto h = first; h < last; ++h) {
            weather = 0.995 * weather + 0.004 * rng.gaussian();
            const double noise = weather + 0.01 * rng.gaussian();
            s.mw.push_back(std::round(load_at(m, h, noise)));
        }
        if (o.defects) {
            for (int k = 0; k < 3; ++k) {
                const auto i = 48 + rng.next() % (s.mw.size() - 48);
                s.mw[i] = k == 0 ? 0.0 : std::numeric_limits<double>::quiet_NaN();
            }
        }
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace jp::workload
