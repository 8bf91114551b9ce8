// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The times a trace may hold.
#include <cstdint>

namespace jp::trace {

// The largest time (and duration) a trace may hold, in nanoseconds either side
// of its epoch: 2^61 ns, 73 years. The reader refuses a file with one beyond it
// as corrupt, so the difference of two times, and a time plus such a
// difference, always fit std::int64_t in what reads the trace.
inline constexpr std::int64_t k_max_time_ns = std::int64_t{1} << 61;
[[nodiscard]] constexpr bool time_in_range(std::int64_t t_ns) noexcept {
    return t_ns >= -k_max_time_ns && t_ns <= k_max_time_ns;
}

// The longest read call a trace keeps (its read_time table): no read takes a minute, so a
// longer one is kept as a minute (a bound then wide, never narrowed) and a stored one over
// it is damage.
inline constexpr std::int64_t k_max_read_ns = 60'000'000'000;

} // namespace jp::trace
