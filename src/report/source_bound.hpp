// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A measured channel with the limits its energy's bound takes: an energy counter's
// (report/bound.hpp) or a measured power field's (report/field_bound.hpp). A model's output,
// an estimate and a counter estimated over a jump have none.
#include "report/bound.hpp"
#include "report/field_bound.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace jp::report {

struct RunData; // report/window.hpp

struct Source {
    std::size_t channel = 0;
    std::optional<CounterLimits> counter;
    std::optional<FieldLimits> field;
};

// Channel i as a bounded source; nullopt where its energy has no bound (no readings, a
// model, an estimate, a counter estimated over a jump, a utilisation).
[[nodiscard]] std::optional<Source> source_of(const RunData& d, std::size_t i);

// The source's energy over [a, b]; an anchored counter's over a window other than the whole
// run says it assumes the counter's profile.
[[nodiscard]] std::optional<Bound>
bound_over(const RunData& d, const Source& s, std::int64_t a, std::int64_t b);

} // namespace jp::report
