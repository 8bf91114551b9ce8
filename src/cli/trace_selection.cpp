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
    // A file of that name first: a trace named "run:1.jptrace" is that file. Else the longest
    // part before a colon that is a file, and the label after it, colons and all: a sweep's
    // label "dev=cuda:0" is picked by t.jptrace:dev=cuda:0.
    for (auto colon = arg.rfind(':'); colon != std::string::npos && colon > 0;
         colon = arg.rfind(':', colon - 1)) {
        if (std::filesystem::is_regular_file(arg.substr(0, colon), ec)) {
            return {arg.substr(0, colon), arg.substr(colon + 1)};
        }
    }
    if (arg.empty()) {
        throw CLI::ValidationError(command, "an empty argument where a trace was expected");
    }
    // Say what is wrong with it, of the part that was meant for a file: the nearest part before
    // a colon that is a directory (a label is of a trace file) or names a trace (*.jptrace),
    // else the whole argument.
    std::string file = arg;
    for (auto colon = arg.rfind(':'); colon != std::string::npos && colon > 0;
         colon = arg.rfind(':', colon - 1)) {
        if (const auto part = arg.substr(0, colon);
            part.ends_with(".jptrace") || std::filesystem::is_directory(part, ec)) {
            file = part;
            break;
        }
    }
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

void unify_paths(std::vector<report::TraceSelection>& selections) {
    for (std::size_t i = 1; i < selections.size(); ++i) {
        for (std::size_t k = 0; k < i; ++k) {
            std::error_code ec;
            if (selections[k].trace == selections[i].trace ||
                std::filesystem::equivalent(selections[k].trace, selections[i].trace, ec)) {
                selections[i].trace = selections[k].trace;
                break;
            }
        }
    }
}

} // namespace jp::cli
