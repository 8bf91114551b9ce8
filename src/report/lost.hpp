// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the sampler's events say about a run's figures: channels lost during the run
// (their figures, and the node's, cover only the time until their last reading) and
// energy counters that never moved (they measured nothing).
#include "report/summary.hpp"
#include "trace/reader.hpp"

namespace jp::report {

// Marks each item whose channel went away or became unreadable (and the node and rest with
// a counted one): lost_at_s, its average power over the time it covers, a note; the run
// is then not complete.
void mark_lost(trace::Reader& reader, RunSummary& out);

// Marks energy counters the monitor saw stuck that never moved over the run, with a note.
void mark_never_changed(const trace::Reader& reader, RunSummary& out);

} // namespace jp::report
