// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/idle.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <span>

namespace jp::daemon {

namespace {

// "24 h", "1 min", "200 ms": a setting's span in its largest whole unit.
std::string span_text(Nanos d) {
    const auto ns = d.count();
    for (const auto& [unit, size] :
         {std::pair{"h", 3'600'000'000'000LL}, std::pair{"min", 60'000'000'000LL},
          std::pair{"s", 1'000'000'000LL}}) {
        if (ns >= size && ns % size == 0) {
            return fmt::format("{} {}", ns / size, unit);
        }
    }
    return fmt::format("{:g} ms", static_cast<double>(ns) * 1e-6);
}

} // namespace

std::string describe(const IdleSettings& s) {
    const int p = static_cast<int>(s.percentile);
    const char* suffix = p % 100 >= 11 && p % 100 <= 13 ? "th"
                         : p % 10 == 1                  ? "st"
                         : p % 10 == 2                  ? "nd"
                         : p % 10 == 3                  ? "rd"
                                                        : "th";
    return fmt::format("the {}{} percentile of {} means over up to {}", p, suffix,
                       span_text(s.period), span_text(s.window));
}

IdleLearner::IdleLearner(const std::vector<Quantity>& quantities, IdleSettings settings)
    : m_settings(settings),
      m_capacity(static_cast<std::size_t>(std::max<std::int64_t>(
          1, settings.window.count() / std::max<std::int64_t>(1, settings.period.count())))) {
    m_channels.resize(quantities.size());
    for (std::size_t i = 0; i < quantities.size(); ++i) {
        m_channels[i].quantity = quantities[i];
    }
}

void IdleLearner::push_mean(Channel& c, double watts) const {
    if (c.means.size() < m_capacity) {
        c.means.push_back(watts);
    } else {
        c.means[c.next] = watts;
        c.next = (c.next + 1) % m_capacity;
    }
}

void IdleLearner::relearn(Channel& c) const {
    const auto period = std::max<std::int64_t>(1, m_settings.period.count());
    const auto needed = static_cast<std::size_t>(
        std::max<std::int64_t>(1, (m_settings.min_history.count() + period - 1) / period));
    if (c.means.size() < needed) {
        return;
    }
    // Nearest rank: the smallest mean with at least `percentile` % of them at or below it
    // (once per period: O(n) for at most 100,000 means).
    auto copy = c.means;
    const auto rank = static_cast<std::size_t>(
        std::ceil(m_settings.percentile / 100.0 * static_cast<double>(copy.size())));
    const auto at = std::min(copy.size() - 1, rank > 0 ? rank - 1 : 0);
    std::ranges::nth_element(copy, copy.begin() + static_cast<std::ptrdiff_t>(at));
    c.learned = LearnedIdle{copy[at], copy.size(),
                            static_cast<double>(copy.size()) * static_cast<double>(period) * 1e-9};
}

void IdleLearner::close_period(Channel& c, double watts) const {
    if (!std::isfinite(watts) || watts < 0) {
        return;
    }
    push_mean(c, watts);
    relearn(c);
}

std::vector<double> IdleLearner::means(std::size_t i) const {
    if (i >= m_channels.size()) {
        return {};
    }
    const auto& c = m_channels[i];
    std::vector<double> out(c.means.begin() + static_cast<std::ptrdiff_t>(c.next), c.means.end());
    out.insert(out.end(), c.means.begin(), c.means.begin() + static_cast<std::ptrdiff_t>(c.next));
    return out;
}

std::size_t IdleLearner::restore(std::size_t i, std::span<const double> older) {
    if (i >= m_channels.size() || m_channels[i].quantity == Quantity::utilization) {
        return 0;
    }
    auto& c = m_channels[i];
    const auto kept = m_capacity - std::min(m_capacity, c.means.size());
    const auto from = older.size() > kept ? older.size() - kept : 0; // the newest that fit
    // Older than anything learned since the start: they go before it, in order.
    const auto since = means(i);
    c.means.clear();
    c.next = 0;
    std::size_t taken = 0;
    for (const double w : older.subspan(from)) {
        if (std::isfinite(w) && w >= 0) {
            push_mean(c, w);
            ++taken;
        }
    }
    for (const double w : since) {
        push_mean(c, w);
    }
    relearn(c);
    return taken;
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
    return i < m_channels.size() ? m_channels[i].learned : std::nullopt;
}

} // namespace jp::daemon
