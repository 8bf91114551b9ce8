// SPDX-License-Identifier: BSD-3-Clause
#include "sampler/sample_queue.hpp"

#include <algorithm>
#include <utility>

namespace jp {

SampleQueue::SampleQueue(std::size_t capacity) : m_capacity(capacity) {
    // Address space only: pages become resident as they fill.
    m_queued.reserve(capacity);
    m_draining.reserve(capacity);
}

void SampleQueue::push(std::span<const trace::SampleRecord> records) noexcept {
    const std::lock_guard lock{m_mutex};
    const std::size_t room = m_capacity - m_queued.size();
    const std::size_t taken = std::min(room, records.size());
    // Within the reservation: never allocates.
    m_queued.insert(m_queued.end(), records.begin(),
                    records.begin() + static_cast<std::ptrdiff_t>(taken));
    m_dropped += records.size() - taken;
}

void SampleQueue::drain(std::vector<trace::SampleRecord>& out) {
    const std::lock_guard drain_lock{m_drain_mutex};
    {
        // The sampling threads wait only for this swap, never for the copy below.
        const std::lock_guard lock{m_mutex};
        std::swap(m_queued, m_draining);
    }
    out.insert(out.end(), m_draining.begin(), m_draining.end());
    m_draining.clear(); // keeps the reservation
}

std::uint64_t SampleQueue::dropped() const noexcept {
    const std::lock_guard lock{m_mutex};
    return m_dropped;
}

} // namespace jp
