// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A channel's recent readings, numbered: a bounded ring where reading number
// `seq` stays until capacity newer ones have come. Clients resume a stream at
// the number after the last they received and learn how many they missed.
#include <cstdint>
#include <vector>

namespace jp::daemon {

struct Reading {
    std::int64_t t_ns = 0; // CLOCK_MONOTONIC
    double value = 0;
};

class History {
public:
    explicit History(std::size_t capacity) : m_ring(capacity == 0 ? 1 : capacity) {}

    void push(Reading r) noexcept {
        m_ring[m_newest % m_ring.size()] = r;
        ++m_newest;
    }
    // Numbers run from 1; newest() is 0 while empty.
    [[nodiscard]] std::uint64_t newest() const noexcept { return m_newest; }
    [[nodiscard]] std::uint64_t oldest() const noexcept {
        return m_newest > m_ring.size() ? m_newest - m_ring.size() + 1 : 1;
    }
    [[nodiscard]] bool empty() const noexcept { return m_newest == 0; }
    // Requires oldest() <= seq <= newest().
    [[nodiscard]] const Reading& at(std::uint64_t seq) const noexcept {
        return m_ring[(seq - 1) % m_ring.size()];
    }
    [[nodiscard]] const Reading& latest() const noexcept { return at(m_newest); }
    [[nodiscard]] std::size_t capacity() const noexcept { return m_ring.size(); }

private:
    std::vector<Reading> m_ring;
    std::uint64_t m_newest = 0;
};

} // namespace jp::daemon
