// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Idle power learned from the daemon's own history (docs/attribution.md): each
// channel's mean power over consecutive periods (60 s by default), the last
// window's worth of them kept (24 h), and a low percentile of those means (the
// 5th) as the channel's idle power once enough periods exist (1 h). Clients
// split a job's share with it where the config names no idle power.
//
// A node that is never idle would make that percentile its busy power. So each period
// also keeps how busy the node's CPUs were (for a GPU: the GPU itself), and a channel
// learns from its quiet periods alone where there are enough; where
// there are none it extrapolates to an idle node from how its power followed the CPUs'
// use, where that is clear, and otherwise keeps the percentile and says it may be high.
#include "core/channel.hpp"
#include "daemon/settings.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace jp::daemon {

// What an idle power was learned from.
enum class IdleBasis : std::uint8_t {
    all,          // every period (the node's CPU use unknown, or not what drives the channel)
    quiet,        // the periods in which the node's CPUs were quiet
    extrapolated, // no quiet periods: the fit of power on CPU use, at no use
    busy,         // no quiet periods and no clear fit: every period; may be above idle
};

// Whose use a channel's quiet periods are judged by: the node's CPUs (a package, DRAM), a
// GPU's own utilisation (the GPU), or the busiest of the CPUs and every GPU (the node, psys).
enum class IdleUse : std::uint8_t { cpus, gpu, cpus_and_gpus };

struct LearnedIdle {
    double watts = 0;
    std::size_t periods = 0; // means it was taken from
    double history_s = 0;    // the time all periods kept cover
    IdleBasis basis = IdleBasis::all;
    std::optional<double> least_busy; // the least busy period's use, 0..1, where known
    IdleUse by = IdleUse::cpus;       // whose use its quiet periods were judged by
};

// "the 5th percentile of 1 min means over up to 24 h": how the settings learn, in words.
[[nodiscard]] std::string describe(const IdleSettings& s);
// The same, and what the value rests on where the node's CPU use was known ("..., of
// the 40 quiet ones (CPUs ≤ 10 % busy)").
[[nodiscard]] std::string describe(const IdleSettings& s, const LearnedIdle& learned);
[[nodiscard]] std::string_view to_string(IdleBasis b);

// Whether the CPUs' use drives a channel of this domain (what its quiet periods are by).
[[nodiscard]] bool follows_cpu(Domain d) noexcept;

class IdleLearner {
public:
    // Every channel that is not a utilisation follows the node's CPUs (tests).
    IdleLearner(const std::vector<Quantity>& quantities, IdleSettings settings);
    // The daemon's: a channel the CPUs drive follows them (follows_cpu); a GPU's power
    // follows its own utilisation channel (the same device), where it has one.
    IdleLearner(const std::vector<Channel>& channels, IdleSettings settings);
    // A reading of channel i at t_ns: joules since the daemon started (energy, unwrapped),
    // watts (power) or percent busy since its previous reading (utilisation).
    void add(std::size_t i, std::int64_t t_ns, double value);
    // The node's CPUs at t_ns: their busy seconds together (cumulative) and how many there
    // are. A period's CPU use is taken from the readings nearest its ends.
    void add_busy(std::int64_t t_ns, double busy_s, std::size_t cpus);
    // Channel i's idle power, once min_history of periods exists (computed as periods
    // close, past 10,000 of them every size/10,000 closes: asking costs nothing).
    [[nodiscard]] std::optional<LearnedIdle> idle(std::size_t i) const;
    [[nodiscard]] const IdleSettings& settings() const noexcept { return m_settings; }
    // How many means a channel keeps (the window over the period).
    [[nodiscard]] std::size_t capacity() const noexcept { return m_capacity; }
    // Channel i's means, oldest first (what a restart keeps: daemon/idle_store.hpp).
    [[nodiscard]] std::vector<double> means(std::size_t i) const;
    // Their periods' use, 0..1 (the CPUs', or the GPU's own; NaN where unknown), in order.
    [[nodiscard]] std::vector<double> busy(std::size_t i) const;
    // Means of periods before this start (oldest first) go before those learned since; the
    // newest that fit beside them are kept. busy: their use (NaN unknown), the same
    // length, or empty where unknown. Returns how many were taken.
    std::size_t
    restore(std::size_t i, std::span<const double> older, std::span<const double> busy = {});

private:
    struct Mean {
        double watts = 0;
        double busy = 0; // NaN: unknown
    };
    // A use, cumulative: the CPUs' busy seconds over how many CPUs, or a GPU's busy
    // seconds (its utilisation readings integrated) over 1. Readings more than two periods
    // apart are not followed across.
    struct Meter {
        std::int64_t t_ns = -1; // the latest reading (-1: none)
        double busy_s = 0;
        double capacity = 0;
        std::uint64_t epoch = 0; // bumped where the use cannot be followed across
    };
    static constexpr std::size_t k_cpus = 0; // m_meters[0]
    // Where a meter stood when a period opened.
    struct Mark {
        std::int64_t t_ns = -1; // -1: it had no reading
        double busy_s = 0;
        std::uint64_t epoch = 0;
    };
    struct Learning {
        Quantity quantity = Quantity::energy;
        std::int64_t start_ns = -1; // the open period's first reading (-1: none)
        double start_value = 0;     // energy: the counter there; power: the sum of readings
        std::int64_t last_ns = 0;
        double last_value = 0; // energy: the counter at last_ns
        std::size_t count = 0; // power: readings summed
        // The meters whose use drives its power (none: never judged); a period's use is the
        // busiest of them. A utilisation: the one meter it feeds.
        std::vector<std::size_t> meters{k_cpus};
        IdleUse by = IdleUse::cpus;
        std::vector<Mark> marks; // per meter, when the open period opened
        std::vector<Mean> means;
        std::size_t next = 0;               // ring position once means is full
        std::size_t closes_since = 0;       // periods closed since it was last learned
        std::optional<LearnedIdle> learned; // recomputed when a period closes
    };
    void open_period(Learning& c, std::int64_t t_ns) const;
    void close_period(Learning& c, double watts) const;
    void push_mean(Learning& c, Mean m) const;
    void relearn(Learning& c) const; // c.learned from its means, once there are enough
    void add_use(Learning& c, std::int64_t t_ns, double percent);
    [[nodiscard]] static std::vector<Mean> ordered(const Learning& c);
    [[nodiscard]] std::vector<double> column(std::size_t i, double Mean::*field) const;
    [[nodiscard]] double use_since(const Mark& mark, const Meter& m) const; // NaN: unknown

    IdleSettings m_settings;
    std::size_t m_capacity;
    std::vector<Learning> m_channels;
    std::vector<Meter> m_meters{Meter{}}; // [k_cpus], then one per utilisation channel
};

} // namespace jp::daemon
