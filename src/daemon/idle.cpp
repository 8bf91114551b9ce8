// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/idle.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

namespace jp::daemon {

namespace {

// The nearest-rank percentile: the smallest value with at least pct % of them at or below
// it (O(n): once per period, at most 100,000 values).
double percentile(std::vector<double> v, double pct) {
    const auto rank =
        static_cast<std::size_t>(std::ceil(pct / 100.0 * static_cast<double>(v.size())));
    const auto at = std::min(v.size() - 1, rank > 0 ? rank - 1 : 0);
    std::ranges::nth_element(v, v.begin() + static_cast<std::ptrdiff_t>(at));
    return v[at];
}

// The least-squares line of power on use, gathered in one pass (Welford's sums). Its power
// at no use where the line is clear: the periods' use spans at least a fifth, power rises
// with it, and it explains at least half of power's variance. None otherwise.
struct LineFit {
    std::size_t n = 0;
    double lo = 1;
    double hi = 0;
    double mx = 0;
    double my = 0;
    double sxx = 0;
    double syy = 0;
    double sxy = 0;

    void add(double x, double y) noexcept {
        ++n;
        lo = std::min(lo, x);
        hi = std::max(hi, x);
        const double dx = x - mx;
        const double dy = y - my;
        mx += dx / static_cast<double>(n);
        my += dy / static_cast<double>(n);
        sxx += dx * (x - mx);
        syy += dy * (y - my);
        sxy += dx * (y - my);
    }
    [[nodiscard]] std::optional<double> at_no_use() const noexcept {
        constexpr double k_min_spread = 0.2;
        constexpr double k_min_r2 = 0.5;
        if (n < 3 || hi - lo < k_min_spread || sxx <= 0 || syy <= 0 || sxy <= 0 ||
            sxy * sxy < k_min_r2 * sxx * syy) {
            return std::nullopt;
        }
        return my - (sxy / sxx) * mx;
    }
};

} // namespace

bool follows_cpu(Domain d) noexcept {
    switch (d) {
    case Domain::node:
    case Domain::cpu_package:
    case Domain::cpu_core:
    case Domain::cpu_uncore:
    case Domain::dram:
    case Domain::psys:
        return true;
    case Domain::gpu:
    case Domain::other:
        break;
    }
    return false;
}

IdleLearner::IdleLearner(const std::vector<Quantity>& quantities, IdleSettings settings)
    : m_settings(settings),
      m_capacity(static_cast<std::size_t>(std::max<std::int64_t>(
          1, settings.window.count() / std::max<std::int64_t>(1, settings.period.count())))) {
    m_channels.resize(quantities.size());
    for (std::size_t i = 0; i < quantities.size(); ++i) {
        auto& c = m_channels[i];
        c.quantity = quantities[i];
        if (c.quantity == Quantity::utilization) {
            c.meters = {m_meters.size()};
            m_meters.push_back(Meter{-1, 0, 1, 0});
        }
    }
}

IdleLearner::IdleLearner(const std::vector<Channel>& channels, IdleSettings settings)
    : IdleLearner(
          [&] {
              std::vector<Quantity> q;
              q.reserve(channels.size());
              for (const auto& c : channels) {
                  q.push_back(c.quantity);
              }
              return q;
          }(),
          settings) {
    std::vector<std::size_t> gpus; // every GPU's utilisation meter
    for (const auto& c : m_channels) {
        if (c.quantity == Quantity::utilization) {
            gpus.push_back(c.meters.front());
        }
    }
    for (std::size_t i = 0; i < channels.size(); ++i) {
        auto& c = m_channels[i];
        const auto d = channels[i].domain;
        if (c.quantity == Quantity::utilization) {
            continue;
        }
        if (d == Domain::node || d == Domain::psys) { // the whole node: the GPUs' work too
            c.meters.insert(c.meters.end(), gpus.begin(), gpus.end());
            c.by = gpus.empty() ? IdleUse::cpus : IdleUse::cpus_and_gpus;
            continue;
        }
        if (follows_cpu(d)) {
            continue;
        }
        c.meters.clear();
        c.by = IdleUse::gpu;
        if (d != Domain::gpu || channels[i].device.empty()) {
            continue;
        }
        for (std::size_t k = 0; k < channels.size(); ++k) { // its own utilisation
            if (channels[k].quantity == Quantity::utilization &&
                channels[k].device == channels[i].device) {
                c.meters = m_channels[k].meters;
                break;
            }
        }
    }
}

void IdleLearner::push_mean(Learning& c, Mean m) const {
    if (c.means.size() < m_capacity) {
        c.means.push_back(m);
    } else {
        c.means[c.next] = m;
        c.next = (c.next + 1) % m_capacity;
    }
}

void IdleLearner::relearn(Learning& c) const {
    const auto period = std::max<std::int64_t>(1, m_settings.period.count());
    const auto needed = static_cast<std::size_t>(
        std::max<std::int64_t>(1, (m_settings.min_history.count() + period - 1) / period));
    if (c.means.size() < needed) {
        return;
    }
    // One pass for the quiet periods and the line; every period's power only where needed.
    std::vector<double> quiet;
    LineFit fit;
    const double quiet_at = m_settings.quiet_busy_percent / 100.0;
    if (!c.meters.empty()) {
        for (const auto& m : c.means) {
            if (std::isfinite(m.busy)) {
                fit.add(m.busy, m.watts);
                if (m.busy <= quiet_at) {
                    quiet.push_back(m.watts);
                }
            }
        }
    }
    LearnedIdle out;
    out.by = c.by;
    out.history_s = static_cast<double>(c.means.size()) * static_cast<double>(period) * 1e-9;
    if (fit.n > 0) {
        out.least_busy = fit.lo;
    }
    if (!quiet.empty() && quiet.size() >= std::min<std::size_t>(needed, 10)) {
        out.basis = IdleBasis::quiet;
        out.periods = quiet.size();
        out.watts = percentile(std::move(quiet), m_settings.percentile);
        c.learned = out;
        return;
    }
    std::vector<double> all;
    all.reserve(c.means.size());
    for (const auto& m : c.means) {
        all.push_back(m.watts);
    }
    out.periods = all.size();
    out.watts = percentile(std::move(all), m_settings.percentile);
    if (fit.n >= needed) {
        // Seldom quiet: the percentile is the least busy periods' power, above idle. A line
        // that finds idle below 0 does not describe this channel: not taken.
        auto at_idle = fit.at_no_use();
        at_idle = at_idle && *at_idle >= 0 ? at_idle : std::nullopt;
        out.basis = at_idle ? IdleBasis::extrapolated : IdleBasis::busy;
        out.watts = at_idle ? std::min(*at_idle, out.watts) : out.watts;
        out.periods = at_idle ? fit.n : out.periods;
    }
    c.learned = out;
}

void IdleLearner::open_period(Learning& c, std::int64_t t_ns) const {
    c.start_ns = t_ns;
    c.marks.clear();
    for (const auto k : c.meters) {
        const auto& m = m_meters[k];
        c.marks.push_back({m.t_ns, m.busy_s, m.epoch});
    }
}

// A meter's use since a mark, 0..1: unknown unless its readings since cover at least half a
// period and at most two, without a break between.
double IdleLearner::use_since(const Mark& mark, const Meter& m) const {
    const auto period = m_settings.period.count();
    const auto covered = m.t_ns - mark.t_ns;
    if (mark.t_ns < 0 || m.epoch != mark.epoch || m.capacity <= 0 || covered <= 0 ||
        2 * covered < period || covered > 2 * period) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return std::clamp((m.busy_s - mark.busy_s) / (m.capacity * static_cast<double>(covered) * 1e-9),
                      0.0, 1.0);
}

void IdleLearner::close_period(Learning& c, double watts) const {
    if (!std::isfinite(watts) || watts < 0) {
        return;
    }
    // The period's use: the busiest of its meters; unknown where any is.
    double busy = c.meters.empty() || c.marks.size() != c.meters.size()
                      ? std::numeric_limits<double>::quiet_NaN()
                      : 0.0;
    for (std::size_t k = 0; k < c.marks.size() && std::isfinite(busy); ++k) {
        const double u = use_since(c.marks[k], m_meters[c.meters[k]]);
        busy = std::isnan(u) ? u : std::max(busy, u);
    }
    push_mean(c, {watts, busy});
    // Learned again at each close while the window is small; past 10,000 periods, once in
    // every size/10,000 closes (a window of 100,000: every tenth), so that a close costs
    // about as much whatever the window.
    const auto stride = std::max<std::size_t>(1, c.means.size() / 10'000);
    if (!c.learned || ++c.closes_since >= stride) {
        c.closes_since = 0;
        relearn(c);
    }
}

std::vector<IdleLearner::Mean> IdleLearner::ordered(const Learning& c) {
    std::vector<Mean> out(c.means.begin() + static_cast<std::ptrdiff_t>(c.next), c.means.end());
    out.insert(out.end(), c.means.begin(), c.means.begin() + static_cast<std::ptrdiff_t>(c.next));
    return out;
}

std::vector<double> IdleLearner::column(std::size_t i, double Mean::*field) const {
    std::vector<double> out;
    if (i < m_channels.size()) {
        for (const auto& m : ordered(m_channels[i])) {
            out.push_back(m.*field);
        }
    }
    return out;
}

std::vector<double> IdleLearner::means(std::size_t i) const {
    return column(i, &Mean::watts);
}

std::vector<double> IdleLearner::busy(std::size_t i) const {
    return column(i, &Mean::busy);
}

std::size_t
IdleLearner::restore(std::size_t i, std::span<const double> older, std::span<const double> busy) {
    if (i >= m_channels.size() || m_channels[i].quantity == Quantity::utilization) {
        return 0;
    }
    auto& c = m_channels[i];
    const auto kept = m_capacity - std::min(m_capacity, c.means.size());
    const auto from = older.size() > kept ? older.size() - kept : 0; // the newest that fit
    // Older than anything learned since the start: they go before it, in order.
    const auto since = ordered(c);
    c.means.clear();
    c.next = 0;
    std::size_t taken = 0;
    for (std::size_t k = from; k < older.size(); ++k) {
        const double w = older[k];
        if (std::isfinite(w) && w >= 0) {
            const double b = busy.size() == older.size() && busy[k] >= 0 && busy[k] <= 1
                                 ? busy[k]
                                 : std::numeric_limits<double>::quiet_NaN();
            push_mean(c, {w, b});
            ++taken;
        }
    }
    for (const auto& m : since) {
        push_mean(c, m);
    }
    c.closes_since = 0;
    relearn(c);
    return taken;
}

void IdleLearner::add_busy(std::int64_t t_ns, double busy_s, std::size_t cpus) {
    auto& m = m_meters[k_cpus];
    const auto n = static_cast<double>(cpus);
    if (!std::isfinite(busy_s) || busy_s < 0 || cpus == 0 || t_ns <= m.t_ns) {
        return;
    }
    // CPUs that came or went, a total that went back, or readings too far apart: no period
    // spans the change.
    if (n != m.capacity || busy_s < m.busy_s ||
        (m.t_ns >= 0 && t_ns - m.t_ns > 2 * m_settings.period.count())) {
        ++m.epoch;
    }
    m.t_ns = t_ns;
    m.busy_s = busy_s;
    m.capacity = n;
}

// A utilisation reading is the percent busy since the one before: integrated, it is the
// GPU's busy seconds. A gap longer than two periods is not followed across.
void IdleLearner::add_use(Learning& c, std::int64_t t_ns, double percent) {
    auto& m = m_meters[c.meters.front()];
    if (t_ns <= m.t_ns) {
        return;
    }
    if (m.t_ns >= 0 && t_ns - m.t_ns > 2 * m_settings.period.count()) {
        ++m.epoch;
    } else if (m.t_ns >= 0) {
        m.busy_s +=
            std::clamp(percent, 0.0, 100.0) / 100 * static_cast<double>(t_ns - m.t_ns) * 1e-9;
    }
    m.t_ns = t_ns;
}

void IdleLearner::add(std::size_t i, std::int64_t t_ns, double value) {
    if (i >= m_channels.size() || !std::isfinite(value)) {
        return;
    }
    auto& c = m_channels[i];
    if (c.quantity == Quantity::utilization) {
        add_use(c, t_ns, value);
        return;
    }
    const auto period = m_settings.period.count();
    const bool energy = c.quantity == Quantity::energy;
    // A gap (the daemon stopped, the channel was lost) or a counter that went back starts
    // a new period: a mean is only ever taken over readings that follow each other.
    const bool broken = c.start_ns >= 0 && (t_ns <= c.last_ns || t_ns - c.last_ns > 2 * period ||
                                            (energy && value < c.last_value));
    if (c.start_ns < 0 || broken) {
        open_period(c, t_ns);
        c.start_value = energy ? value : 0;
        c.count = 0;
        c.last_ns = t_ns;
        c.last_value = value;
        if (energy) {
            return;
        }
    }
    c.last_ns = t_ns;
    c.last_value = value;
    if (!energy) {
        c.start_value += value;
        ++c.count;
    }
    if (t_ns - c.start_ns < period) {
        return;
    }
    const double seconds = static_cast<double>(t_ns - c.start_ns) * 1e-9;
    if (energy) {
        close_period(c, (value - c.start_value) / seconds);
        open_period(c, t_ns);
        c.start_value = value;
    } else {
        close_period(c, c.start_value / static_cast<double>(c.count));
        c.start_ns = -1; // the next reading opens the next period
    }
}

std::optional<LearnedIdle> IdleLearner::idle(std::size_t i) const {
    return i < m_channels.size() ? m_channels[i].learned : std::nullopt;
}

} // namespace jp::daemon
