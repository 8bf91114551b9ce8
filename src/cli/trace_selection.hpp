// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A command line's trace argument: a trace file whole, or TRACE:LABEL for one label of it
// (report and compare), and for report a directory of a job's node traces.
#include "report/summary.hpp"

#include <string>
#include <vector>

namespace jp::cli {

// `arg` read as a trace, TRACE:LABEL, or (directories true) a directory. Throws
// CLI::ValidationError naming `command` and what the argument is not (no such file, a
// directory, not a regular file).
[[nodiscard]] report::TraceSelection
parse_selection(const std::string& command, const std::string& arg, bool directories);

// Each trace named through several paths (./t.jptrace, t.jptrace, a link) spelt as where it was
// first named, so that every later step can tell a file by its path alone.
void unify_paths(std::vector<report::TraceSelection>& selections);

} // namespace jp::cli
