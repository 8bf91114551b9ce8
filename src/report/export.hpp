// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A trace's samples, markers and per-run summaries as CSV or JSON, for tools
// that do not read SQLite.
#include "report/summary.hpp"

#include <nlohmann/json.hpp>
#include <ostream>

namespace jp::report {

// run_id,label,channel,quantity,unit,t_s,value,flags — one row per sample,
// by run, channel and time; t_s is seconds since the trace epoch.
[[nodiscard]] Result<void> write_samples_csv(trace::Reader& reader, std::ostream& out);
// run_id,label,t_s,kind,name — one row per marker.
[[nodiscard]] Result<void> write_markers_csv(trace::Reader& reader, std::ostream& out);
// run_id,label,kind,repeat,phase,item,energy_j,avg_w,peak_w,runtime_s,provenance,counted —
// one row per item (node, parts, rest, not-summed channels) of every run, and
// of every phase (phase = its name; empty for the whole run).
[[nodiscard]] Result<void> write_summary_csv(trace::Reader& reader, std::ostream& out);

// {"meta", "channels", "runs": [{..., "markers", "samples": {channel: {"t_s", "value",
// "flags"}}, "summary"}]}
[[nodiscard]] Result<nlohmann::json> trace_json(trace::Reader& reader);

// A CSV field, quoted when it holds a comma, quote or line break. Text a spreadsheet would
// take for a formula (a job's marker or label starting with =, +, -, @, a tab or a carriage
// return) gets a leading ' so that it stays text (OWASP's advice on CSV injection).
[[nodiscard]] std::string csv_field(std::string_view s);

} // namespace jp::report
