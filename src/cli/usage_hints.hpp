// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a command-line mistake means, said in the user's terms: a mistyped
// command or option named with the nearest real one, a global option given after the
// command explained, a missing argument or value named with what it is, a value that is
// not a number said so, an empty file name refused.
#include <CLI/CLI.hpp>
#include <span>
#include <string>

namespace jp::cli {

// The one line for a parse error of `jouleprof ARGS...` (args without argv[0]):
// CLI11's own words unless one of the cases above applies.
[[nodiscard]] std::string
explain_parse_error(const CLI::App& app, std::span<char* const> args, const CLI::ParseError& error);

// For options that name a file to write or read: an empty value is an error
// (it would otherwise mean "the default name" without saying so).
[[nodiscard]] CLI::Validator non_empty_path();

} // namespace jp::cli
