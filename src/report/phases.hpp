// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Phases from markers: begin/end pairs by name, points kept apart.
#include "trace/types.hpp"

#include <span>
#include <string>
#include <vector>

namespace jp::report {

struct Phase {
    std::string name;
    std::int64_t begin_ns = 0; // trace time, clamped to the run
    std::int64_t end_ns = 0;
    bool open_at_end = false; // no end marker: closed at the run's end
};

struct Phases {
    std::vector<Phase> phases;         // ordered by begin time
    std::vector<trace::Marker> points; // point markers
    std::vector<std::string> problems; // e.g. an end without a begin, in words
};

// Pairs each end with the latest open begin of the same name (so phases of
// one name may nest); a begin never ended closes at run_end.
[[nodiscard]] Phases
phases_of(std::span<const trace::Marker> markers, std::int64_t run_start, std::int64_t run_end);

} // namespace jp::report
