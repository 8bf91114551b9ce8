// SPDX-License-Identifier: BSD-3-Clause
#include "cli/usage_hints.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <string>
#include <string_view>
#include <vector>

namespace jp::cli {
namespace {

// An option of the program itself (cli/globals.cpp, --help, --version), as the parser
// has it, and whether it takes a value.
struct GlobalOption {
    std::string name; // "-c", "--config"
    bool takes_value;
};
using GlobalOptions = std::vector<GlobalOption>;

GlobalOptions globals_of(const CLI::App& app) {
    GlobalOptions out;
    for (const auto* opt : app.get_options()) {
        const bool value = opt->get_type_size() != 0;
        for (const auto& s : opt->get_snames()) {
            out.push_back({"-" + s, value});
        }
        for (const auto& l : opt->get_lnames()) {
            out.push_back({"--" + l, value});
        }
    }
    return out;
}

// The program's option an argument names: "--config=F" is --config, and a cluster of
// short flags ("-vv") or a short option with its value attached ("-cFILE") its first.
const GlobalOption* global_named(const GlobalOptions& globals, std::string_view arg) {
    auto name = arg.substr(0, arg.find('='));
    if (!name.starts_with("--") && name.size() > 2) {
        name = name.substr(0, 2);
    }
    const auto it = std::ranges::find(globals, name, &GlobalOption::name);
    return it == globals.end() ? nullptr : &*it;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] =
                std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// The first argument that is neither a global option nor its value: where the command goes.
std::string_view command_word(const GlobalOptions& globals, std::span<char* const> args) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view arg = args[i];
        if (arg == "--") {
            return {};
        }
        if (!arg.starts_with('-')) {
            return arg;
        }
        const auto* g = global_named(globals, arg);
        if (g != nullptr && g->takes_value && arg.find('=') == std::string_view::npos &&
            (arg.starts_with("--") || arg.size() == 2)) {
            ++i;
        }
    }
    return {};
}

std::vector<std::string> command_names(const CLI::App& app) {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        names.push_back(sub->get_name());
    }
    return names;
}

// " (did you mean 'NAME'?)" for the nearest of `names` within two edits, else "".
template <class Names> std::string nearest(std::string_view word, const Names& names) {
    std::string_view best;
    std::size_t best_distance = 3;
    for (const std::string_view name : names) {
        if (const auto d = edit_distance(word, name); d < best_distance) {
            best = name;
            best_distance = d;
        }
    }
    return best.empty() ? std::string{} : fmt::format(" (did you mean '{}'?)", best);
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
        if (global_named(globals, arg) == nullptr) {
            return arg.substr(0, arg.find('='));
        }
    }
    return {};
}

// The command the user gave, down to its deepest subcommand ("study report").
const CLI::App* deepest(const CLI::App& app, std::string& path) {
    const CLI::App* at = &app;
    for (auto subs = at->get_subcommands(); !subs.empty(); subs = at->get_subcommands()) {
        at = subs.front();
        path += path.empty() ? at->get_name() : " " + at->get_name();
    }
    return at;
}

// A required argument that was not given, in the command's terms:
// "report: 'traces' is missing: trace files, or ... (jouleprof report --help)".
std::string missing_argument(const CLI::App& app, const CLI::ParseError& error) {
    std::string path;
    const CLI::App* command = deepest(app, path);
    for (const CLI::Option* opt : command->get_options()) {
        if (!opt->get_required() || opt->count() != 0) {
            continue;
        }
        const std::string name =
            opt->get_positional() ? "'" + opt->get_name() + "'" : opt->get_name();
        std::string what = opt->get_description();
        if (what.size() > 1 && std::isupper(static_cast<unsigned char>(what[0])) != 0 &&
            std::islower(static_cast<unsigned char>(what[1])) != 0) {
            what[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(what[0])));
        }
        return fmt::format("{}: {} is missing{}{} (jouleprof {} --help)", path, name,
                           what.empty() ? "" : ": ", what, path);
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
        const auto word = command_word(globals, args);
        const auto names = command_names(app);
        if (!word.empty() && std::ranges::find(names, word) == names.end()) {
            return unknown_command(word, names);
        }
        if (const auto option = unknown_option(globals, args); !option.empty()) {
            std::vector<std::string_view> options;
            for (const auto& g : globals) {
                options.push_back(g.name);
            }
            return fmt::format("unknown option '{}'{} (jouleprof --help lists them; a command's "
                               "own options go after it)",
                               option, nearest(option, options));
        }
        if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
            return fmt::format("give a command: {} (jouleprof --help)", fmt::join(names, ", "));
        }
        return error.what();
    }
    if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
        return missing_argument(app, error);
    }
    // A global option after the command (before any "--", which starts the job's own
    // arguments): CLI11 calls it unexpected; say where it goes.
    if (dynamic_cast<const CLI::ExtrasError*>(&error) == nullptr) {
        return error.what();
    }
    const auto& command = parsed.front()->get_name();
    bool after_command = false;
    for (const std::string_view arg : args) {
        if (arg == "--") {
            break;
        }
        if (after_command && global_named(globals, arg) != nullptr) {
            return fmt::format("{} is a global option: give it before the command (jouleprof {} {} "
                               "...)",
                               arg.substr(0, arg.find('=')), arg, command);
        }
        after_command = after_command || arg == command;
    }
    return error.what();
}

CLI::Validator non_empty_path() {
    return {[](const std::string& value) {
                return value.empty() ? std::string{"an empty file name: name a file, or leave the "
                                                   "option out for the default"}
                                     : std::string{};
            },
            ""};
}

} // namespace jp::cli
