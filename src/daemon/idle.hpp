// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Idle power learned from the daemon's own history (docs/attribution.md): each
// channel's mean power over consecutive periods (60 s by default), the last
// window's worth of them kept (24 h), and a low percentile of those means (the
// 5th) as the channel's idle power once enough periods exist (1 h). Clients
// split a job's share with it where the config names no idle power.
#include "core/channel.hpp"
#include "daemon/settings.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace jp::daemon {

struct LearnedIdle {
    double watts = 0;
    std::size_t periods = 0; // means it was taken from
    double history_s = 0;    // the time they cover
};

// "the 5th percentile of 1 min means over up to 24 h": how the settings learn, in words.
[[nodiscard]] std::string describe(const IdleSettings& s);

class IdleLearner {
public:
    IdleLearner(const std::vector<Quantity>& quantities, IdleSettings settings);
    // A reading of channel i at t_ns: joules since the daemon started (energy, unwrapped)
    // or watts (power). Other quantities are ignored.
    void add(std::size_t i, std::int64_t t_ns, double value);
    // Channel i's idle power, once min_history of periods exists (computed as each period
    // closes: asking costs nothing).
    [[nodiscard]] std::optional<LearnedIdle> idle(std::size_t i) const;
    [[nodiscard]] const IdleSettings& settings() const noexcept { return m_settings; }
    // How many means a channel keeps (the window over the period).
    [[nodiscard]] std::size_t capacity() const noexcept { return m_capacity; }
    // Channel i's means, oldest first (what a restart keeps: daemon/idle_store.hpp).
    [[nodiscard]] std::vector<double> means(std::size_t i) const;
    // Means of periods before this start (oldest first) go before those learned since; the
    // newest that fit beside them are kept. Returns how many were taken.
    std::size_t restore(std::size_t i, std::span<const double> older);

private:
    struct Channel {
        Quantity quantity = Quantity::energy;
        std::int64_t start_ns = -1; // the open period's first reading (-1: none)
        double start_value = 0;     // energy: the counter there; power: the sum of readings
        std::int64_t last_ns = 0;
        double last_value = 0; // energy: the counter at last_ns
        std::size_t count = 0; // power: readings summed
        std::vector<double> means;
        std::size_t next = 0;               // ring position once means is full
        std::optional<LearnedIdle> learned; // recomputed when a period closes
    };
    void close_period(Channel& c, double watts) const;
    void push_mean(Channel& c, double watts) const;
    void relearn(Channel& c) const; // c.learned from its means, once there are enough

    IdleSettings m_settings;
    std::size_t m_capacity;
    std::vector<Channel> m_channels;
};

} // namespace jp::daemon
