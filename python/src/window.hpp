// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A span of a run as a run of its own: a measurement nested in another
// (its figures over [t0, t1], the phases and points inside it).
#include "report/summary.hpp"

#include <string>

namespace jp::python {

// Throws TraceFailure/MissingFile (see bindings.hpp) when the run cannot be summarised.
[[nodiscard]] report::RunSummary window_summary(trace::Reader& reader,
                                                std::int64_t run_id,
                                                const std::string& label,
                                                std::int64_t t0,
                                                std::int64_t t1,
                                                const std::string& status);

} // namespace jp::python
