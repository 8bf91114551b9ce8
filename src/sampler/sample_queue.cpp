// SPDX-License-Identifier: BSD-3-Clause
#include "sampler/sample_queue.hpp"

namespace jp {

SampleQueue::SampleQueue(std::size_t capacity) : m_ring(capacity) {}

bool SampleQueue::push(const trace::SampleRecord& record) noexcept {
    const std::lock_guard lock{m_mutex};
    if (m_size == m_ring.size()) {
        ++m_dropped;
        return false;
    }
    m_ring[(m_head + m_size) % m_ring.size()] = record;
    ++m_size;
    return true;
}

void SampleQueue::drain(std::vector<trace::SampleRecord>& out) {
    const std::lock_guard lock{m_mutex};
    out.reserve(out.size() + m_size);
    for (std::size_t i = 0; i < m_size; ++i) {
        out.push_back(m_ring[(m_head + i) % m_ring.size()]);
    }
    m_head = (m_head + m_size) % m_ring.size();
    m_size = 0;
}

std::uint64_t SampleQueue::dropped() const noexcept {
    const std::lock_guard lock{m_mutex};
    return m_dropped;
}

} // namespace jp
