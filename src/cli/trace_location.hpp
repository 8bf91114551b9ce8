// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where a measurement's trace goes (docs/reports.md, "Where traces go"):
// `-o FILE` is that file; `-o DIR` (an existing directory) a new file there;
// no -o the trace directory: $JOULEPROF_TRACE_DIR, else
// $XDG_STATE_HOME/jouleprof/traces, else ~/.local/state/jouleprof/traces,
// made (0700) when missing, so a checkout never fills with traces; the temp
// directory where none of those can be made, said in a warning.
#include "core/error.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace jp::cli {

// The environment, for tests: a variable's value or nothing.
using EnvLookup = std::function<std::optional<std::string>(const char*)>;

// The default trace directory by the rules above (not created here).
[[nodiscard]] std::filesystem::path default_trace_dir(const EnvLookup& env);

// A new trace's name: jouleprof-<UTC yyyymmdd-hhmmss>-<pid>.jptrace.
[[nodiscard]] std::filesystem::path default_trace_name();

// The path a trace is created at for -o `output` (empty: none given). Makes
// the default directory; an error names the option and the directory when a
// given directory is missing or cannot be written.
[[nodiscard]] Result<std::filesystem::path> trace_path_for(const std::filesystem::path& output,
                                                           const EnvLookup& env);

} // namespace jp::cli
