// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/idle.hpp"

#include <algorithm>
#include <cmath>

namespace jp::daemon {

IdleLearner::IdleLearner(const std::vector<Quantity>& quantities, IdleSettings settings)
    : m_settings(settings),
      m_capacity(static_cast<std::size_t>(std::max<std::int64_t>(
          1, settings.window.count() / std::max<std::int64_t>(1, settings.period.count())))) {
    m_channels.resize(quantities.size());
    for (std::size_t i = 0; i < quantities.size(); ++i) {
        m_channels[i].quantity = quantities[i];
    }
}

void IdleLearner::close_period(Channel& c, double watts) const {
    if (!std::isfinite(watts) || watts < 0) {
        return;
    }
    if (c.means.size() < m_capacity) {
        c.means.push_back(watts);
    } else {
        c.means[c.next] = watts;
        c.next = (c.next + 1) % m_capacity;
    }
    ++c.total;
}

void IdleLearner::add(std::size_t i, std::int64_t t_ns, double value) {
    if (i >= m_channels.size() || !std::isfinite(value)) {
        return;
    }
    auto& c = m_channels[i];
    if (c.quantity == Quantity::utilization) {
        return;
    }
    const auto period = m_settings.period.count();
    const bool energy = c.quantity == Quantity::energy;
    // A gap (the daemon stopped, the channel was lost) or a counter that went back starts
    // a new period: a mean is only ever taken over readings that follow each other.
    const bool broken = c.start_ns >= 0 && (t_ns <= c.last_ns || t_ns - c.last_ns > 2 * period ||
                                            (energy && value < c.last_value));
    if (c.start_ns < 0 || broken) {
        c.start_ns = t_ns;
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
        c.start_ns = t_ns;
        c.start_value = value;
    } else {
        close_period(c, c.start_value / static_cast<double>(c.count));
        c.start_ns = -1; // the next reading opens the next period
    }
}

std::optional<LearnedIdle> IdleLearner::idle(std::size_t i) const {
    if (i >= m_channels.size()) {
        return std::nullopt;
    }
    const auto& c = m_channels[i];
    const auto period = std::max<std::int64_t>(1, m_settings.period.count());
    const auto needed = static_cast<std::size_t>(
        std::max<std::int64_t>(1, (m_settings.min_history.count() + period - 1) / period));
    if (c.means.size() < needed) {
        return std::nullopt;
    }
    auto sorted = c.means;
    std::ranges::sort(sorted);
    // Nearest rank: the smallest mean with at least `percentile` % of them at or below it.
    const auto rank = static_cast<std::size_t>(
        std::ceil(m_settings.percentile / 100.0 * static_cast<double>(sorted.size())));
    const auto at = std::min(sorted.size() - 1, rank > 0 ? rank - 1 : 0);
    return LearnedIdle{sorted[at], sorted.size(),
                       static_cast<double>(sorted.size()) * static_cast<double>(period) * 1e-9};
}

} // namespace jp::daemon
