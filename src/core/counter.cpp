#include "core/counter.hpp"

namespace jp {

double plausible_max_watts(bool whole_node) noexcept {
    // A single CPU socket or GPU stays well below 5 kW; a node below 100 kW.
    return whole_node ? 100'000.0 : 5'000.0;
}

void CounterTracker::reset(double raw_joules, std::int64_t t_ns) noexcept {
    m_total = 0;
    m_last_raw = raw_joules;
    m_last_t = t_ns;
    m_last_change_t = t_ns;
    m_started = true;
    m_stuck_reported = false;
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
    double delta = raw_joules - m_last_raw;
    if (delta < 0 && m_wrap) {
        delta += *m_wrap;
        step.wrapped = true;
    }
    const double bound =
        m_max_watts * static_cast<double>(t_ns - m_last_t + k_update_slack_ns) * 1e-9;
    if (delta < 0 || delta > bound) {
        // Reset, torn read or garbage: keep the last plausible power over this gap.
        step.jump = true;
        step.wrapped = false;
        delta = m_last_watts * dt;
    } else {
        m_last_watts = delta / dt;
    }
    if (raw_joules != m_last_raw) {
        m_last_change_t = t_ns;
    } else if (!m_stuck_reported && t_ns - m_last_change_t >= k_stuck_after_ns) {
        step.stuck = true;
        m_stuck_reported = true;
    }
    m_last_raw = raw_joules;
    m_last_t = t_ns;
    m_total += delta;
    step.delta_joules = delta;
    return step;
}

} // namespace jp
