// SPDX-License-Identifier: BSD-3-Clause
#include "core/counter.hpp"

#include <algorithm>
#include <cmath>

namespace jp {

double plausible_max_watts(bool whole_node) noexcept {
    // A single CPU socket or GPU stays well below 5 kW; a node below 100 kW.
    return whole_node ? 100'000.0 : 5'000.0;
}

double plausible_max_watts(const Channel& c) noexcept {
    const double most = std::max(c.max_watts.value_or(0.0), c.limit_watts.value_or(0.0));
    if (most > 0 && std::isfinite(most)) {
        return 2 * most;
    }
    return plausible_max_watts(c.domain == Domain::node);
}

void CounterTracker::reset(double raw_joules, std::int64_t t_ns) noexcept {
    m_total = 0;
    m_last_watts = 0;
    m_held = {};
    if (std::isfinite(raw_joules)) {
        m_last_raw = raw_joules;
    }
    m_last_t = t_ns;
    m_last_change_t = t_ns;
    m_started = true;
    m_stuck_reported = false;
}

std::optional<double> CounterTracker::plausible_delta(double from_raw,
                                                      std::int64_t from_t,
                                                      double raw,
                                                      std::int64_t t_ns,
                                                      bool& wrapped) const noexcept {
    double delta = raw - from_raw;
    wrapped = false;
    if (delta < 0 && m_wrap) {
        delta += *m_wrap;
        wrapped = true;
    }
    const double bound = m_max_watts * static_cast<double>(t_ns - from_t + m_slack_ns) * 1e-9;
    if (!(delta >= 0) || delta > bound) { // also NaN
        return std::nullopt;
    }
    return delta;
}

void CounterTracker::note_power(double joules, std::int64_t over_ns) noexcept {
    // Over a short interval one counter update is a large share of the energy
    // (a phase read 0.4 ms after a regular one may catch a whole 1 ms update):
    // the power a jump would be credited comes from intervals of 10 ms or more.
    constexpr std::int64_t k_min_span_ns = 10'000'000;
    if (over_ns >= k_min_span_ns || m_last_watts == 0) {
        m_last_watts = joules / (static_cast<double>(over_ns) * 1e-9);
    }
}

CounterStep CounterTracker::update(double raw_joules, std::int64_t t_ns) noexcept {
    CounterStep step;
    if (!m_started) {
        reset(raw_joules, t_ns);
        return step;
    }
    if (t_ns <= m_last_t) {
        return step;
    }
    const double dt = static_cast<double>(t_ns - m_last_t) * 1e-9;
    double delta = 0;
    bool wrapped_on = false;
    bool wrapped_back = false;
    const auto on = plausible_delta(m_last_raw, m_last_t, raw_joules, t_ns, wrapped_on);
    if (m_held.active && t_ns - m_held.t > k_hold_ns) {
        m_held.active = false; // no return in time: the jump was a reset, not a glitch
        step.settled = true;
    }
    std::optional<double> back;
    if (m_held.active) {
        back = plausible_delta(m_held.raw, m_held.t, raw_joules, t_ns, wrapped_back);
    }
    if (back && on) {
        // Both series fit: the jump's goes on unless its power now is far above
        // both the power before the jump and the old series' since (a value
        // that dropped and came back looks like a huge step from the drop).
        const double back_w = *back / (static_cast<double>(t_ns - m_held.t) * 1e-9);
        if (*on / dt <= 2 * std::max(m_held.watts, back_w) + 1.0) {
            back.reset();
        }
    }
    if (!std::isfinite(raw_joules)) {
        back.reset(); // garbage: a jump that leaves the last finite value to compare with
    }
    if (back) {
        // Back on the old series: what it gained since the last good reading,
        // less what the jump's readings were credited, so the total is the
        // counter's again (lower than the estimates, if they were too high).
        delta = *back - m_held.credited;
        note_power(*back, t_ns - m_held.t);
        step.returned = true;
        step.wrapped = wrapped_back;
        m_held.active = false;
    } else if (on) {
        delta = *on; // also the series a jump went to (a reset), from its new value
        step.wrapped = wrapped_on;
        note_power(delta, t_ns - m_last_t);
        m_held.credited += m_held.active ? delta : 0.0;
    } else {
        // Reset, torn read or garbage: keep the last plausible power over this gap.
        step.jump = true;
        if (!m_held.active) {
            m_held = {true, m_last_raw, m_last_t, 0.0, m_last_watts};
        }
        delta = std::min(m_last_watts, m_max_watts / 2) * dt; // never above the domain's limit
        m_held.credited += delta;
    }
    step.provisional = m_held.active;
    if (raw_joules != m_last_raw) {
        m_last_change_t = t_ns;
    } else if (!m_stuck_reported && t_ns - m_last_change_t >= k_stuck_after_ns) {
        step.stuck = true;
        m_stuck_reported = true;
    }
    if (std::isfinite(raw_joules)) {
        m_last_raw = raw_joules;
    }
    m_last_t = t_ns;
    m_total += delta;
    step.delta_joules = delta;
    return step;
}

} // namespace jp
