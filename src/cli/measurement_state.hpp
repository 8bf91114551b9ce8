// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// MeasurementSession's state, shared by measurement.cpp (series of commands,
// the session's start and end) and measurement_block.cpp (in-process runs):
// private to those two files.
#include "attrib/tracker.hpp"
#include "cli/job_markers.hpp"
#include "cli/measurement.hpp"
#include "cli/recorder.hpp"
#include "sampler/sampler.hpp"

#include <algorithm>
#include <atomic>
#include <fmt/format.h>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace jp::cli {
namespace detail {

// The sensors found at the session's start and their channels.
struct Discovered {
    std::vector<std::unique_ptr<sensors::Sensor>> sensors;
    std::vector<Channel> table;
    bool estimated = false;
    std::map<std::string, sensors::LearnedIdle> idle; // learned by jouleprofd, per channel
    sensors::LedgerQuery ledger;                      // jouleprofd's, where it runs
};

} // namespace detail

struct MeasurementSession::State {
    State(SessionOptions&& o,
          detail::Discovered&& d,
          trace::Writer&& writer,
          std::filesystem::path trace,
          std::int64_t epoch_mono,
          const Config& config)
        : interval(o.interval), epoch(epoch_mono),
          path(std::move(trace)), sampler{std::move(d.sensors), std::move(d.table),
                                          sampler_config(o.interval, config), epoch_mono},
          recorder{std::move(writer), sampler}, markers{std::move(o.mark_rules), recorder,
                                                        epoch_mono, path, o.job_stdout_to_stderr},
          live(o.live), estimated(d.estimated), attribution(config.attribution.enabled) {
        usage.idle_watts.insert(config.attribution.idle_watts.begin(),
                                config.attribution.idle_watts.end());
        // jouleprofd's learned idle power where the config names none (config first).
        std::string learned_names;
        double history_s = 0;
        for (const auto& [name, learned] : d.idle) {
            if (usage.idle_watts.emplace(name, learned.watts).second) {
                usage.idle_learned.emplace(name, learned.how);
                // A node seldom quiet: the learned idle power is a fit's, or may be high.
                if (learned.basis == "busy" || learned.basis == "extrapolated") {
                    usage.notes.push_back(fmt::format(
                        "idle power of {}: {}; {}", name, learned.how,
                        learned.basis == "busy"
                            ? "the job's idle part may be too high, its dynamic part too low"
                            : "the job's idle and dynamic parts rest on that fit"));
                }
                learned_names += (learned_names.empty() ? "" : ", ") + name;
                history_s =
                    history_s == 0 ? learned.history_s : std::min(history_s, learned.history_s);
            }
        }
        if (!learned_names.empty()) {
            usage.notes.push_back(fmt::format(
                "idle power of {} as jouleprofd learned it from {} of its history", learned_names,
                history_s < 120    ? fmt::format("{:.0f} s", history_s)
                : history_s < 7200 ? fmt::format("{:.0f} min", history_s / 60)
                                   : fmt::format("{:.1f} h", history_s / 3600)));
        }
        usage.job_cpu = config.attribution.job_cpu;
        if (d.ledger) { // the daemon's clock and ours to the trace's
            usage.ledger = [query = std::move(d.ledger),
                            epoch_mono](std::int64_t from_ns, std::int64_t to_ns,
                                        const daemon::LedgerGroups& groups)
                -> std::expected<daemon::LedgerReply, std::string> {
                auto r = query(from_ns + epoch_mono, to_ns + epoch_mono, groups);
                if (r) {
                    for (auto& seg : r->segments) {
                        seg.t_ns -= epoch_mono;
                    }
                    r->complete_from_ns -= epoch_mono;
                    r->counts_complete_from_ns -= epoch_mono;
                }
                return r;
            };
        }
    }

    State(const State&) = delete;
    State& operator=(const State&) = delete;
    State(State&&) = delete;
    State& operator=(State&&) = delete;
    // A run an exception or a dropped Python session left open: its sampling threads stop
    // before the members the drain's companion touches go.
    ~State() { end_sampling_quietly(); }

    // The sampler's begin() and end(); the latter forgets the job the drain thread read.
    std::int64_t begin_sampling(std::int64_t run_id) { return sampler.begin(run_id); }
    std::int64_t end_sampling() {
        const auto t = sampler.end(); // the drain thread has stopped
        usage_on_drain.store(nullptr);
        return t;
    }
    void end_sampling_quietly() noexcept {
        if (sampler.running()) {
            try {
                (void)end_sampling();
            } catch (...) { // NOLINT(bugprone-empty-catch): tearing down, nothing to tell
            }
        }
    }
    // Where the sampler drains a source that samples on its own (the eBPF kernel sampler),
    // the job's CPU use is read and the trace committed on that thread's wake-ups, and the
    // main thread sleeps until the job ends.
    void on_drain(std::int64_t t_ns);

    Nanos interval;
    std::int64_t epoch;
    std::filesystem::path path;
    Sampler sampler;
    Recorder recorder;
    JobMarkers markers;
    attrib::TrackerOptions usage; // each job's CPU use against the node's (attrib/tracker.hpp)
    std::atomic<attrib::Tracker*> usage_on_drain{nullptr}; // the running job's, if any
    std::int64_t usage_sampled_ns = 0;                     // the drain thread's alone
    bool live;
    bool estimated;
    bool attribution = true; // off in [attribution]
    bool drain_companion = false;
    int runs = 0; // jobs started in this session
    // Process CPU time already reported with earlier runs: each run reports
    // everything the monitor spent since (the first one its start-up too).
    double cpu_reported = 0;
    Result<std::vector<report::RunSummary>> summaries =
        std::unexpected(Error{ErrorKind::internal, "", "not finished", {}});
    std::optional<trace::RunInfo> block; // the open in-process run (begin_block)
    // The open block's CPU use (attribute_self), read every 100 ms by block_usage_thread.
    std::mutex block_usage_mutex;
    std::optional<attrib::Tracker> block_usage;
    std::jthread block_usage_thread;
    std::vector<std::pair<std::string, std::string>> block_env; // its marker socket
};

namespace detail {

// A new run of the series (its start stamped now).
[[nodiscard]] trace::RunInfo
new_run(const MeasurementSession::State& s, const Series& series, std::string kind, int repeat);
// Process CPU time since the previous run ended (the first run: since start-up).
double monitor_cpu_since_last_run(MeasurementSession::State& s);

} // namespace detail
} // namespace jp::cli
