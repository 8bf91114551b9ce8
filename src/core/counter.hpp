// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Turns raw cumulative energy readings (which wrap, reset and sometimes glitch)
// into joules since the run began. Alumet's CounterDiff idea, with plausibility checks.
#include "core/channel.hpp"

#include <cstdint>
#include <optional>

namespace jp {

struct CounterStep {
    double delta_joules = 0; // energy added by this reading (after correction)
    bool wrapped = false;    // the counter passed its range and was unwrapped
    bool jump = false;       // impossible change: replaced by the last plausible power
    bool returned = false;   // back on the counter's series after a jump: nothing double-counted
    bool stuck = false;      // set once when the value has not changed for stuck_after_ns
};

class CounterTracker {
public:
    // wrap_joules: the counter's range (RAPL max_energy_range_uj), if it wraps.
    // max_watts: power above which a change is impossible for this channel.
    CounterTracker(std::optional<double> wrap_joules, double max_watts) noexcept
        : m_wrap(wrap_joules), m_max_watts(max_watts) {}

    // Starts a new run at this reading; total() becomes 0.
    void reset(double raw_joules, std::int64_t t_ns) noexcept;
    // Folds in a later reading. Readings must come in time order; an equal or
    // earlier timestamp is ignored and returns an empty step. After a jump
    // (a glitch, a torn read, a reset), a reading that is plausible from the
    // last good one continues the old series: it adds what the counter really
    // gained since then less what the jump readings were credited, so a value
    // that drops and returns adds nothing twice; one that is plausible only
    // from the jump's value means the counter was reset and goes on from there.
    CounterStep update(double raw_joules, std::int64_t t_ns) noexcept;

    [[nodiscard]] double total() const noexcept { return m_total; }
    [[nodiscard]] bool started() const noexcept { return m_started; }
    [[nodiscard]] std::int64_t last_time() const noexcept { return m_last_t; }

    // Counters update in quanta (RAPL ~1 ms, NVML 10-100 ms, pm_counters 100 ms):
    // a short window may legitimately see a whole quantum, so the plausibility
    // bound allows this much extra time.
    static constexpr std::int64_t k_update_slack_ns = 250'000'000;
    static constexpr std::int64_t k_stuck_after_ns = 5'000'000'000;

private:
    // The change from `from_raw` to raw over [from_t, t_ns], unwrapped, if plausible.
    [[nodiscard]] std::optional<double> plausible_delta(double from_raw,
                                                        std::int64_t from_t,
                                                        double raw,
                                                        std::int64_t t_ns,
                                                        bool& wrapped) const noexcept;

    struct Held { // the last good reading before a jump
        bool active = false;
        double raw = 0;
        std::int64_t t = 0;
        double credited = 0; // joules added for the jump's readings since
    };

    std::optional<double> m_wrap;
    double m_max_watts;
    double m_total = 0;
    double m_last_raw = 0;
    double m_last_watts = 0;
    std::int64_t m_last_t = 0;
    std::int64_t m_last_change_t = 0;
    bool m_started = false;
    bool m_stuck_reported = false;
    Held m_held;
};

// Default plausibility bound for a domain's power, in watts.
[[nodiscard]] double plausible_max_watts(bool whole_node) noexcept;

// The plausibility bound of one channel: twice the most it may draw (the
// highest RAPL constraint, else its limit: a GPU's power limit, a node's cap;
// transients exceed limits briefly) when the sensor says, else the domain's
// default.
[[nodiscard]] double plausible_max_watts(const Channel& c) noexcept;

} // namespace jp
