// SPDX-License-Identifier: BSD-3-Clause
#include "cli/trace_selection.hpp"

#include <CLI/CLI.hpp>

namespace jp::cli {

report::TraceSelection
parse_selection(const std::string& command, const std::string& arg, bool directories) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(arg, ec) ||
        (directories && std::filesystem::is_directory(arg, ec))) {
        return {arg, std::nullopt};
    }
    // A file of that name first: a trace named "run:1.jptrace" is that file.
    const auto colon = arg.rfind(':');
    if (colon != std::string::npos && std::filesystem::is_regular_file(arg.substr(0, colon), ec)) {
        return {arg.substr(0, colon), arg.substr(colon + 1)};
    }
    // Say what is wrong with it: a file that is not there is the likeliest.
    const auto file = colon != std::string::npos && !std::filesystem::exists(arg, ec)
                          ? arg.substr(0, colon)
                          : arg;
    const bool directory = std::filesystem::is_directory(file, ec);
    const auto* const why = !std::filesystem::exists(file, ec) ? "no such file"
                            : directory && file != arg ? "a directory: a label is of a trace file"
                            : directory                ? "a directory"
                                                       : "not a regular file";
    const auto* const what = directories
                                 ? "a trace file, a directory of a job's traces, nor TRACE:LABEL"
                                 : "a trace file nor TRACE:LABEL";
    throw CLI::ValidationError(command,
                               "'" + arg + "' is neither " + what + " (" + file + ": " + why + ")");
}

} // namespace jp::cli
