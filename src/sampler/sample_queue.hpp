// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A bounded queue of samples between the sampling threads and the trace
// writer. push() never allocates; when the writer falls behind by the whole
// capacity the newest samples are dropped and counted. The room is reserved
// for seconds of a stalled writer, but each drain takes everything and the
// queue fills from its start again, so the pages resident are those of one
// drain period, not of the whole reservation (docs/overhead.md). A drain
// swaps two such reservations under the lock and copies outside it, so a
// sampling thread never waits for the copy of a second of readings.
#include "trace/types.hpp"

#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

namespace jp {

class SampleQueue {
public:
    explicit SampleQueue(std::size_t capacity);

    // Queues what fits, in order; the rest is counted as dropped. One lock for a whole
    // sensor's readings: a sampling tick takes the lock once, not once per channel.
    void push(std::span<const trace::SampleRecord> records) noexcept;
    // Appends everything queued to out, oldest first.
    void drain(std::vector<trace::SampleRecord>& out);
    [[nodiscard]] std::uint64_t dropped() const noexcept;
    [[nodiscard]] std::size_t capacity() const noexcept { return m_capacity; }

private:
    mutable std::mutex m_mutex; // push() and the swap
    std::mutex m_drain_mutex;   // one drain at a time (it uses m_draining)
    std::size_t m_capacity;
    // Both reserved to m_capacity and never reallocated; swapped at each drain.
    std::vector<trace::SampleRecord> m_queued;
    std::vector<trace::SampleRecord> m_draining;
    std::uint64_t m_dropped = 0;
};

} // namespace jp
