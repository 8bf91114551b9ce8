// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One run as an HTML fragment for a notebook (the Python layer's
// _repr_html_): the study's table of its parts, its power profile as an
// inline SVG with the phases, and the phase table. A scoped stylesheet; no
// script, no network.
#include "report/summary.hpp"

#include <string>

namespace jp::report {

// `run` must be a run of `reader` summarised by summarize_run.
[[nodiscard]] Result<std::string>
run_fragment(trace::Reader& reader, const RunSummary& run, int plot_width_px = 720);

} // namespace jp::report
