// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Turns raw cumulative energy readings (which wrap, reset and sometimes glitch)
// into joules since the run began. Alumet's CounterDiff idea, with plausibility checks.
#include "core/channel.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace jp {

struct CounterStep {
    double delta_joules = 0; // energy added by this reading (after correction)
    bool wrapped = false;    // the counter passed its range and was unwrapped
    bool jump = false;       // impossible change: replaced by the last plausible power
    bool returned = false;   // back on the counter's series after a jump: nothing double-counted
    // The total is provisional: a jump is not resolved yet (the counter may still
    // return to its old series); the readings from the last good one before the
    // jump to the one that resolves it are estimates, and their span is uncertain.
    bool provisional = false;
    bool settled = false; // the jump's series went on for k_hold_ns: taken as a reset
    bool stuck = false;   // set once when the value has not changed for stuck_after_ns
};

class CounterTracker {
public:
    // wrap_joules: the counter's range (RAPL max_energy_range_uj), if it wraps.
    // max_watts: power above which a change is impossible for this channel.
    // update_ns: how often the source updates, where known (RAPL ~1 ms): a
    // reading may show one update more than its interval's energy, and a read
    // preempted on a loaded machine is stamped up to half its length late, so
    // the plausibility bound allows two updates' worth and at least 20 ms more
    // than the interval; where not known, 250 ms (NVML's 10-100 ms counters).
    CounterTracker(std::optional<double> wrap_joules,
                   double max_watts,
                   std::optional<std::int64_t> update_ns = std::nullopt) noexcept
        : m_wrap(wrap_joules), m_max_watts(max_watts), m_slack_ns(slack_for(update_ns)) {}

    // Starts a new run at this reading; total() becomes 0.
    void reset(double raw_joules, std::int64_t t_ns) noexcept;
    // Folds in a later reading. Readings must come in time order; an equal or
    // earlier timestamp is ignored and returns an empty step. A jump (a glitch,
    // a torn read, a reset) is credited the last plausible power, and what the
    // counter does afterwards decides what it was, for up to k_hold_ns after
    // the last good reading: a reading plausible from it is the old series
    // back (a value that dropped or spiked and returned): it adds what the
    // counter really gained since then less what was credited meanwhile (a
    // negative step where the credit was too high), so the total is the
    // counter's again; one plausible from the jump's own series goes on from
    // there (a reset). Plausible from both, the jump's series goes on unless
    // its power is more than twice both the power before the jump and the old
    // series' since. A non-finite reading is a jump.
    CounterStep update(double raw_joules, std::int64_t t_ns) noexcept;

    [[nodiscard]] double total() const noexcept { return m_total; }
    [[nodiscard]] bool started() const noexcept { return m_started; }
    [[nodiscard]] std::int64_t last_time() const noexcept { return m_last_t; }

    // Counters update in quanta (RAPL ~1 ms, NVML 10-100 ms, pm_counters 100 ms):
    // a short window may legitimately see a whole quantum, so the plausibility
    // bound allows this much extra time.
    static constexpr std::int64_t k_update_slack_ns = 250'000'000;
    static constexpr std::int64_t k_stuck_after_ns = 5'000'000'000;
    // How long after the last good reading a return to its series is recognised:
    // a glitch, a torn read or a value that drops and comes back within it is
    // counted exactly; a counter reset costs an uncertain span this long.
    static constexpr std::int64_t k_hold_ns = 2'000'000'000;

private:
    [[nodiscard]] static std::int64_t slack_for(std::optional<std::int64_t> update_ns) noexcept {
        constexpr std::int64_t k_min_slack_ns = 20'000'000;
        return update_ns && *update_ns > 0 ? std::max(2 * *update_ns, k_min_slack_ns)
                                           : k_update_slack_ns;
    }

    // The power a jump is credited: from this interval if it is long enough.
    void note_power(double joules, std::int64_t over_ns) noexcept;

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
        double watts = 0;    // the power before the jump
    };

    std::optional<double> m_wrap;
    double m_max_watts;
    std::int64_t m_slack_ns;
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
