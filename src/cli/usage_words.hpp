// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The words of a command line as the parser sees them, for cli/usage_hints: the program's
// own options, which argument names one of them (a cluster of short flags too), where the
// command goes, and the nearest name to a mistyped one.
#include <CLI/CLI.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace jp::cli::usage {

// An option of the program itself (cli/globals.cpp, --help, --version), as the parser
// has it, and whether it takes a value.
struct GlobalOption {
    std::string name; // "-c", "--config"
    bool takes_value;
};
using GlobalOptions = std::vector<GlobalOption>;

[[nodiscard]] GlobalOptions globals_of(const CLI::App& app);

// The program's option an argument names: "--config=F" is --config, and a cluster of
// short flags ("-vv") or a short option with its value attached ("-cFILE") its first.
[[nodiscard]] const GlobalOption* global_named(const GlobalOptions& globals, std::string_view arg);

// Whether the argument is wholly the program's own: a long option of it, or a cluster of
// its short flags ("-qv"), the last of which may take the rest as its value ("-vcFILE").
// "-qx" is not: -x is no option of the program.
[[nodiscard]] bool is_global_arg(const GlobalOptions& globals, std::string_view arg);

// The first argument that is neither a global option nor its value: where the command goes.
[[nodiscard]] std::string_view command_word(const GlobalOptions& globals,
                                            std::span<char* const> args);

// The names of options, each with its dashes ("-r", "--repeat").
[[nodiscard]] std::vector<std::string> names_of(const GlobalOptions& options);
// The options a command has, by name: names_of(globals_of(command)).
[[nodiscard]] std::vector<std::string> option_names(const CLI::App& command);

// The option an argument names: "--x=1" is "--x"; "-rabc" (a short option with its value
// attached, or a cluster) is "-r".
[[nodiscard]] std::string option_name(std::string_view arg);

// Whether an option that takes a value finds it in the next argument: "--config F", "-c F",
// not "--config=F" nor "-cF".
[[nodiscard]] bool value_follows(std::string_view arg);

// " (did you mean 'NAME'?)" for the nearest of `names` within two edits, else "" (and
// always "" for a one-letter option: every such name is one edit from "-h").
[[nodiscard]] std::string nearest(std::string_view word, std::span<const std::string> names);

} // namespace jp::cli::usage
