// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A bounded ring of samples between the sampling threads and the trace
// writer. push() never allocates; when the writer falls behind by a whole
// ring the newest samples are dropped and counted.
#include "trace/types.hpp"

#include <cstdint>
#include <mutex>
#include <vector>

namespace jp {

class SampleQueue {
public:
    explicit SampleQueue(std::size_t capacity);

    // False (and counted as dropped) when full.
    bool push(const trace::SampleRecord& record) noexcept;
    // Appends everything queued to out, oldest first.
    void drain(std::vector<trace::SampleRecord>& out);
    [[nodiscard]] std::uint64_t dropped() const noexcept;
    [[nodiscard]] std::size_t capacity() const noexcept { return m_ring.size(); }

private:
    mutable std::mutex m_mutex;
    std::vector<trace::SampleRecord> m_ring;
    std::size_t m_head = 0; // next to read
    std::size_t m_size = 0;
    std::uint64_t m_dropped = 0;
};

} // namespace jp
