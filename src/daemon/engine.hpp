// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The daemon's measuring side: the same sensors and Sampler as `jouleprof
// run`, started once and never stopped, every energy counter unwrapped into
// joules since the daemon started. Each channel keeps a bounded history; the
// channels restricted to a floor are also published at random windows of at
// least the floor, the only view of them that floored callers and /metrics get.
// A window's end is chosen at random, shown only once the floor has passed
// since it, and dropped (its window merges into the next) when a floored
// caller's exact read came within the floor of it: no reading a floored
// caller can hold is closer than the floor to another (docs/security.md).
#include "attrib/node_cpu.hpp"
#include "daemon/history.hpp"
#include "daemon/idle.hpp"
#include "daemon/idle_store.hpp"
#include "daemon/settings.hpp"
#include "sampler/sampler.hpp"
#include "sensors/host.hpp"

#include <chrono>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace jp::daemon {

struct ChannelHealth {
    bool up = true;           // false after a gone or read-error event, until a reading comes
    std::uint64_t errors = 0; // gone, read-error, jump and stuck events
};

class Engine {
public:
    // Discovers the sensors (never through a daemon), starts sampling. Fails
    // when nothing can be read.
    static Result<std::unique_ptr<Engine>> start(const sensors::Host& host,
                                                 const DaemonConfig& config);
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;
    Engine(Engine&&) = delete;
    Engine& operator=(Engine&&) = delete;
    ~Engine();

    [[nodiscard]] const std::vector<Channel>& channels() const noexcept { return m_channels; }
    // Floored for callers without full resolution.
    [[nodiscard]] bool restricted(std::size_t i) const noexcept { return m_restricted[i]; }
    [[nodiscard]] Nanos interval(std::size_t i) const noexcept { return m_intervals[i]; }
    [[nodiscard]] Nanos base_interval() const noexcept { return m_base_interval; }
    [[nodiscard]] const std::vector<std::string>& notes() const noexcept { return m_notes; }
    // When its counters started from 0 (CLOCK_MONOTONIC).
    [[nodiscard]] std::int64_t started_ns() const noexcept { return m_started_ns; }

    // New floor, jitter and unrestricted backends (SIGHUP).
    void set_rules(const AccessRules& rules);
    // Moves the sampler's readings into the histories and publishes a floored
    // window when one is due.
    void tick(std::int64_t now_ns);
    // Reads every fast sensor now (an exact read); appends (channel, reading)
    // for each value read. Slow channels are not read here.
    void read_now(std::vector<std::pair<std::size_t, Reading>>& out);
    // Each channel's longest read call since the daemon started (ns; 0 where the source
    // stamps its own values): a reading's time is its call's middle, so clients widen
    // their bounds by half of it (docs/uncertainty.md, "read time").
    [[nodiscard]] std::vector<std::int64_t> read_times() const;
    // A floored caller was given readings taken from first_ns to last_ns: no
    // publication within the floor of them will be shown.
    void note_floored_read(std::int64_t first_ns, std::int64_t last_ns);

    [[nodiscard]] const History& history(std::size_t i) const noexcept { return m_history[i]; }
    [[nodiscard]] const History& published(std::size_t i) const noexcept { return m_published[i]; }
    [[nodiscard]] const ChannelHealth& health(std::size_t i) const noexcept { return m_health[i]; }
    // Windows chosen so far (each one's readings are the newest when it was chosen), and
    // the number of the one published last (0: none yet): what jouleprofd's accounts
    // (daemon/accounts.hpp) read the CPU time at and split.
    [[nodiscard]] std::uint64_t windows_chosen() const noexcept { return m_chosen; }
    [[nodiscard]] std::uint64_t window_published() const noexcept { return m_published_window; }
    [[nodiscard]] std::uint64_t missed_deadlines() const noexcept;
    // Channel i's idle power learned from its history so far (daemon/idle.hpp).
    [[nodiscard]] std::optional<LearnedIdle> idle(std::size_t i) const { return m_idle.idle(i); }
    [[nodiscard]] const IdleSettings& idle_settings() const noexcept { return m_idle.settings(); }
    // Writes the idle history into the state directory, if there is one (daemon/idle_store.hpp):
    // done by tick() every k_idle_save and by the destructor; false when it failed (logged).
    bool save_idle();
    static constexpr Nanos k_idle_save{std::chrono::minutes{10}};

private:
    Engine(std::vector<std::unique_ptr<sensors::Sensor>> sensors,
           std::vector<Channel> table,
           const SamplerConfig& sampling,
           const DaemonConfig& config);
    void absorb(const std::vector<trace::SampleRecord>& records);
    std::string restore_idle_history(const DaemonConfig& config);
    void choose(std::int64_t now_ns);
    void publish(std::int64_t now_ns);
    [[nodiscard]] bool near_floored_read(std::int64_t t_ns) const noexcept;

    // The next window's end: each channel's newest reading when it was chosen.
    struct Candidate {
        std::uint64_t number = 0; // windows_chosen() when it was chosen
        std::int64_t chosen_ns = 0;
        std::vector<std::uint64_t> seq; // 0: nothing to publish for that channel
    };
    struct Span {
        std::int64_t first_ns = 0;
        std::int64_t last_ns = 0;
    };

    std::vector<Channel> m_channels;
    std::vector<Nanos> m_intervals;
    std::vector<Nanos> m_lag; // per channel: how late its readings arrive (plan_intervals)
    Nanos m_base_interval;
    std::vector<bool> m_restricted;
    std::vector<History> m_history;
    std::vector<History> m_published;
    std::vector<std::uint64_t> m_published_upto; // history seq the last publication covered
    std::vector<std::int64_t> m_published_t;     // its reading's time (0: none yet)
    std::optional<Candidate> m_candidate;
    std::uint64_t m_chosen = 0;
    std::uint64_t m_published_window = 0;
    std::deque<Span> m_floored_reads; // younger than twice the floor and the jitter
    std::vector<ChannelHealth> m_health;
    IdleLearner m_idle;
    // The node's CPUs, read for the idle learner's quiet periods (none: never judged).
    std::optional<attrib::NodeCpu> m_node_cpu;
    std::int64_t m_next_busy_read = 0;
    std::vector<double> m_cpu_busy;                   // each CPU's busy seconds at the last reading
    double m_cpu_busy_total = 0;                      // what they added since the first, together
    std::optional<std::filesystem::path> m_state_dir; // where the idle history is kept
    std::vector<AbsentIdle> m_idle_absent;            // its channels not on this node now, kept
    std::int64_t m_next_idle_save = 0;
    std::string m_idle_save_error; // the last failure logged (said once until it changes)
    void read_busy(std::int64_t now_ns);
    void start_idle_learning(const sensors::Host& host, const DaemonConfig& config);
    std::vector<std::string> m_notes;
    AccessRules m_rules;
    std::int64_t m_next_publish = 0;
    std::int64_t m_started_ns = 0;
    std::mt19937_64 m_random;
    std::vector<trace::SampleRecord> m_records; // reused by tick()
    std::vector<trace::Event> m_events;
    std::unique_ptr<Sampler> m_sampler;
};

} // namespace jp::daemon
