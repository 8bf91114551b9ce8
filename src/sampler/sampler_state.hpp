// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The sampler's own state per channel and per sensor (sampler.cpp, record.cpp, batch.cpp).
#include "sampler/sampler.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace jp {

struct Sampler::ChannelState {
    explicit ChannelState(CounterTracker t) : tracker(t) {}
    CounterTracker tracker;
    std::atomic<double> live_joules{0};
    std::atomic<double> live_watts{0};
    std::int64_t last_t = 0;
    double last_watts = 0;
    bool have_last = false;
    bool needs_reset = true; // the next reading starts the run's counter at zero
    bool reported = false;   // gone/fatal said once
    // The run's longest call whose value was stamped at its middle: ours, or the source's own
    // where it stamps its values and says (a daemon's). Read while the run goes on (jouleprofd).
    std::atomic<std::int64_t> longest_call{0};
};

struct Sampler::Slot {
    sensors::Sensor* sensor = nullptr;
    std::size_t first = 0; // index of its first channel in the table
    // Between reads; a batched sensor's (one that samples on its own): between drains.
    std::int64_t interval = 0;
    std::int64_t next = 0;
    bool batched = false;    // drained on a thread of its own (Sensor::batched())
    bool own_thread = false; // slow or batched: not read by the fast thread
    // Under the mutex: the next edge read throws away what a batched sensor took before it
    // (begin()); the next edge read is the run's end, after which its threads record nothing
    // more (end()); that edge was read.
    bool discard_backlog = false;
    bool end_pending = false;
    bool ended = true;
    bool companion_failed = false; // its drain thread's alone (Sampler::set_drain_companion)
    std::vector<sensors::Value> buf;
    // A read's (or a drain's) records, queued at once; a drain's may be many (it keeps the
    // largest capacity it needed).
    std::vector<trace::SampleRecord> records;
    std::vector<sensors::Stamped> batch; // a drain's readings
    std::vector<std::uint64_t> lost;     // a drain's lost readings per channel
    std::mutex mutex;                    // sensor reads and its channels' states
};

} // namespace jp
