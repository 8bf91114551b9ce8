// SPDX-License-Identifier: BSD-3-Clause
#include "cli/usage_hints.hpp"

#include "cli/usage_command_hints.hpp"
#include "cli/usage_words.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <string>
#include <string_view>
#include <vector>

namespace jp::cli {
namespace {

using namespace usage;

std::vector<std::string> command_names(const CLI::App& app) {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        names.push_back(sub->get_name());
    }
    return names;
}

std::string unknown_command(std::string_view word, const std::vector<std::string>& names) {
    return fmt::format("unknown command '{}'{}; the commands: {} (jouleprof --help)", word,
                       nearest(word, names), fmt::join(names, ", "));
}

// The first option before any command that jouleprof does not have, or "".
std::string_view unknown_option(const GlobalOptions& globals, std::span<char* const> args) {
    for (const std::string_view arg : args) {
        if (arg == "--" || !arg.starts_with('-')) {
            return {};
        }
        if (!is_global_arg(globals, arg)) {
            return arg.substr(0, arg.find('='));
        }
    }
    return {};
}

// No command was parsed: a mistyped one, an unknown option before it, none at all.
std::string without_command(const CLI::App& app,
                            const GlobalOptions& globals,
                            std::span<char* const> args,
                            const CLI::ParseError& error) {
    const auto word = command_word(globals, args);
    const auto names = command_names(app);
    if (!word.empty() && std::ranges::find(names, word) == names.end()) {
        return unknown_command(word, names);
    }
    if (const auto option = unknown_option(globals, args); !option.empty()) {
        return unknown_program_option(option, globals);
    }
    if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
        return fmt::format("give a command: {} (jouleprof --help)", fmt::join(names, ", "));
    }
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
        return value_missing(error.what(), "");
    }
    return error.what();
}

} // namespace

std::string explain_parse_error(const CLI::App& app,
                                std::span<char* const> args,
                                const CLI::ParseError& error) {
    const auto parsed = app.get_subcommands();
    const auto globals = globals_of(app);
    if (parsed.empty()) {
        return without_command(app, globals, args, error);
    }
    const CLI::App& top = *parsed.front();
    std::string path;
    const CLI::App& command = *deepest(app, path);
    // A misplaced or misspelt option first: CLI11 may have failed on what it did to the
    // arguments after it (a required one "missing", a path "not existing").
    if (auto said = before_command(top, globals, args); !said.empty()) {
        return said;
    }
    if (auto said = after_command(top, command, path, globals, args); !said.empty()) {
        return said;
    }
    if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
        auto said = missing_arguments(command, path);
        return said.empty() ? error.what() : said;
    }
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
        return value_missing(error.what(), path);
    }
    if (dynamic_cast<const CLI::ConversionError*>(&error) != nullptr) {
        return not_converted(command, error.what(), path);
    }
    return error.what();
}

CLI::Validator non_empty_path() {
    return {[](const std::string& value) {
                if (value.empty()) {
                    return std::string{"an empty file name: name a file, or leave the option "
                                       "out for the default"};
                }
                if (value == "--") {
                    return std::string{"'--' is no file name: the option needs its value "
                                       "before '--'"};
                }
                return std::string{};
            },
            ""};
}

} // namespace jp::cli
