// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One sampling thread for the fast sensors (per-sensor intervals, absolute
// deadlines on the monotonic clock) and one thread per slow sensor, so a BMC
// that takes a second to answer, or an NVML energy read that takes 4 ms, never
// delays RAPL. Every fast counter is also
// read at the job's exact edges, whatever the interval.
#include "core/counter.hpp"
#include "sampler/lateness.hpp"
#include "sampler/sample_queue.hpp"
#include "sensors/sensor.hpp"
#include "sys/alarm.hpp"
#include "trace/types.hpp"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace jp {

struct Config;

inline constexpr Nanos k_queue_headroom{std::chrono::seconds{8}};

struct SamplerConfig {
    Nanos default_interval{std::chrono::milliseconds{500}};
    std::map<std::string, Nanos, std::less<>> backend_intervals; // by backend name
    // Readings held between two drains; 0: enough for k_queue_headroom of
    // every sensor at its interval (the recorder drains every 0.5 s).
    std::size_t queue_capacity = 0;
    // How often a source that samples on its own (the eBPF kernel sampler) is drained, and
    // a drain companion runs (set_drain_companion).
    Nanos drain_interval{std::chrono::milliseconds{100}};
};

// The sampling configuration a monitor's config file asks for, at the interval given.
[[nodiscard]] SamplerConfig sampler_config(Nanos interval, const Config& config);

struct LiveFigures {
    double watts = 0;  // latest node power (measured node channel or sum of counted parts)
    double joules = 0; // node energy since the run began
};

class Sampler {
public:
    Sampler(std::vector<std::unique_ptr<sensors::Sensor>> sensors,
            std::vector<Channel> table,
            const SamplerConfig& config,
            std::int64_t epoch_mono_ns);
    Sampler(const Sampler&) = delete;
    Sampler& operator=(const Sampler&) = delete;
    Sampler(Sampler&&) = delete;
    Sampler& operator=(Sampler&&) = delete;
    ~Sampler();

    [[nodiscard]] const std::vector<Channel>& channels() const noexcept { return m_table; }

    // Reads every sensor read at edges now (the start edge: each counter's zero), then
    // starts the sampling threads. Returns the edge time, ns since the epoch.
    std::int64_t begin(std::int64_t run_id);
    // Reads every sensor read at edges now, as at an edge, while the threads go on
    // (jouleprofd's exact reads); appends what was recorded to out. Returns
    // the time of the reads, ns since the epoch.
    std::int64_t sample_now(std::vector<trace::SampleRecord>& out);
    // Reads every sensor read at edges now (the end edge), then stops the threads.
    // Returns the edge time, ns since the epoch.
    std::int64_t end();

    // Moves the samples and events gathered so far to the caller.
    void drain(std::vector<trace::SampleRecord>& samples, std::vector<trace::Event>& events);
    [[nodiscard]] LiveFigures live() const noexcept;
    [[nodiscard]] std::uint64_t dropped_samples() const noexcept { return m_queue.dropped(); }
    [[nodiscard]] std::uint64_t missed_deadlines() const noexcept { return m_missed.load(); }
    // How late the fast sensors' ticks of the last run were read; valid after end().
    [[nodiscard]] const LatenessHistogram& lateness() const noexcept { return m_lateness; }
    // Each channel's longest read call in the last (or the running) run, where its values were
    // stamped at their call's middle: ours, or, for a source that gives its own times, the
    // call length it gives with them (Value::call_ns; 0: none known).
    [[nodiscard]] std::vector<std::int64_t> read_times() const;
    // Runs fn (with the time, ns since the epoch) on the thread that drains a source sampling
    // on its own, after each of its drains while a run is sampled, outside any sensor's lock:
    // a monitor's other periodic work rides that wake-up instead of waking a thread of its
    // own. Set it before begin(). False (and fn is not kept) where no source samples on its
    // own, so nothing here wakes periodically to run it.
    bool set_drain_companion(std::function<void(std::int64_t)> fn);

    // The run begin() last started (0: none yet).
    [[nodiscard]] std::int64_t run_id() const noexcept { return m_run_id; }
    // Between begin() and end(): its threads run (asked from the thread that calls those).
    [[nodiscard]] bool running() const noexcept { return !m_threads.empty(); }

    // An edge value taken this long before the edge read began (a source that
    // gives its own timestamps) is recorded with a "stale_edge" event.
    static constexpr std::int64_t k_stale_edge_ns = 5'000'000;

private:
    struct ChannelState;
    struct Slot;

    void fast_loop();
    void slow_loop(Slot& slot);
    // Records what a batched sensor gathered since its last drain (batch.cpp); keep false:
    // throws it away (what it took before the run began).
    void drain_slot(Slot& slot, bool keep);
    // A call of channel index's that gave a value took call_ns: the run's longest so far?
    void note_call(std::size_t index, std::int64_t call_ns);
    // Reads a sensor (read_edge() when flags has k_flag_edge) and records its
    // values; appends the records to out when given.
    void sample_slot(Slot& slot, std::uint8_t flags, std::vector<trace::SampleRecord>* out);
    // Every sensor read at edges, at once: the slow ones (a GPU's energy read spins ~4 ms
    // in the driver) each on a thread of its own, so an edge of 8 GPUs costs one read's
    // time, not eight.
    void read_edges(std::vector<trace::SampleRecord>* out);
    // One reading of channel index at t into the run (its counter unwrapped, live figures,
    // events): the record to queue, or none (a failed read, a time not newer).
    std::optional<trace::SampleRecord>
    record(std::size_t index, const sensors::Value& v, std::int64_t t, std::uint8_t flags);
    void add_event(std::int32_t channel, std::int64_t t, std::string kind, std::string detail);
    [[nodiscard]] std::int64_t now() const noexcept;
    void stop_threads();

    std::vector<std::unique_ptr<sensors::Sensor>> m_sensors;
    std::vector<Channel> m_table;
    std::vector<std::unique_ptr<ChannelState>> m_states;
    std::vector<std::unique_ptr<Slot>> m_slots;
    std::int64_t m_epoch;
    std::int64_t m_run_id = 0;
    SampleQueue m_queue;
    std::mutex m_event_mutex;
    std::vector<trace::Event> m_events;
    sys::Alarm m_alarm; // the sampling threads sleep on it; stopped at end()
    std::vector<std::thread> m_threads;
    std::atomic<std::uint64_t> m_missed{0};
    LatenessHistogram m_lateness;              // the fast thread's alone while it runs
    std::uint64_t m_dropped_reported = 0;      // drain()'s alone
    std::optional<std::size_t> m_node_channel; // a measured node channel, if any
    Slot* m_companion_slot = nullptr;          // whose drain thread runs m_companion
    std::function<void(std::int64_t)> m_companion;
};

} // namespace jp
