// SPDX-License-Identifier: BSD-3-Clause
#include "sampler/sample_queue.hpp"

#include <utility>

namespace jp {

SampleQueue::SampleQueue(std::size_t capacity) : m_capacity(capacity) {
    // Address space only: pages become resident as they fill.
    m_queued.reserve(capacity);
    m_draining.reserve(capacity);
}

bool SampleQueue::push(const trace::SampleRecord& record) noexcept {
    const std::lock_guard lock{m_mutex};
    if (m_queued.size() == m_capacity) {
        ++m_dropped;
        return false;
    }
    m_queued.push_back(record); // within the reservation: never allocates
    return true;
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
