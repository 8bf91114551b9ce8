// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A parse error within a command, said in the command's terms (cli/usage_hints): what is
// missing, a value that is not what the option takes, an option the command has not, one
// given on the wrong side of the command. Each gives "" where it does not apply.
#include "cli/usage_words.hpp"

#include <CLI/CLI.hpp>
#include <span>
#include <string>
#include <string_view>

namespace jp::cli::usage {

// The command the user gave, down to its deepest subcommand; path: "study report".
[[nodiscard]] const CLI::App* deepest(const CLI::App& app, std::string& path);

// "report: 'traces' is missing: trace files, or ... (jouleprof report --help)";
// "sweep: --param and 'command' are missing (jouleprof sweep --help)".
[[nodiscard]] std::string missing_arguments(const CLI::App& command, const std::string& path);

// CLI11's "--json-file: 1 required FILE missing": "report: --json-file needs a value (FILE)
// (jouleprof report --help)"; path "" for the program's own options.
[[nodiscard]] std::string value_missing(const std::string& text, const std::string& path);

// CLI11's "Could not convert: --repeat = abc": "run: --repeat: cannot read 'abc' as a whole
// number (jouleprof run --help)"; a flag given a value: "takes no value".
[[nodiscard]] std::string
not_converted(const CLI::App& command, const std::string& text, const std::string& path);

// "unknown option '--quite' (did you mean '--quiet'?) (jouleprof --help lists them; ...)":
// an option before the command that the program has not.
[[nodiscard]] std::string unknown_program_option(std::string_view name,
                                                 const GlobalOptions& globals);

// Before the command (after the program's own options): an option the program has not,
// named with its nearest, or one of the command's, said to go after it.
[[nodiscard]] std::string before_command(const CLI::App& top_command,
                                         const GlobalOptions& globals,
                                         std::span<char* const> args);

// After the command, before any "--": one of the program's own options (said to go before
// the command), or an option the command has not, named with its nearest.
[[nodiscard]] std::string after_command(const CLI::App& top_command,
                                        const CLI::App& command,
                                        const std::string& path,
                                        const GlobalOptions& globals,
                                        std::span<char* const> args);

} // namespace jp::cli::usage
