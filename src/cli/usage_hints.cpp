// SPDX-License-Identifier: BSD-3-Clause
#include "cli/usage_hints.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <regex>
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

// What an option is, for a message: its description up to its first semicolon, the
// first letter lower-case ("trace files, or ..."); "" where it has none.
std::string what_it_is(const CLI::Option& opt) {
    std::string what = opt.get_description();
    what = what.substr(0, std::min(what.find("; "), what.find(" ;")));
    while (!what.empty() && what.back() == ' ') {
        what.pop_back();
    }
    if (what.size() > 1 && std::isupper(static_cast<unsigned char>(what[0])) != 0 &&
        std::islower(static_cast<unsigned char>(what[1])) != 0) {
        what[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(what[0])));
    }
    return what;
}

std::string display_name(const CLI::Option& opt) {
    return opt.get_positional() ? "'" + opt.get_name() + "'" : opt.get_name();
}

// The required arguments that were not given, in the command's terms:
// "report: 'traces' is missing: trace files, or ... (jouleprof report --help)";
// "sweep: --param and 'command' are missing (jouleprof sweep --help)".
std::string missing_arguments(const CLI::App* command, const std::string& path) {
    std::vector<const CLI::Option*> missing;
    for (const CLI::Option* opt : command->get_options()) {
        if (opt->get_required() && opt->count() == 0) {
            missing.push_back(opt);
        }
    }
    if (missing.empty()) {
        return {};
    }
    if (missing.size() == 1) {
        const auto what = what_it_is(*missing.front());
        return fmt::format("{}: {} is missing{}{} (jouleprof {} --help)", path,
                           display_name(*missing.front()), what.empty() ? "" : ": ", what, path);
    }
    std::vector<std::string> names;
    for (const auto* opt : missing) {
        names.push_back(display_name(*opt));
    }
    const auto last = names.back();
    names.pop_back();
    return fmt::format("{}: {} and {} are missing (jouleprof {} --help)", path,
                       fmt::join(names, ", "), last, path);
}

// "--json-file: 1 required FILE missing" (an option given without its value):
// "report: --json-file needs a value (FILE) (jouleprof report --help)"; path "" for the
// program's own options.
std::string value_missing(const std::string& text, const std::string& path) {
    static const std::regex k_form{R"(^(-[^:\s]+): \d+ required (\S+) missing$)"};
    const auto where = path.empty() ? std::string{} : path + ": ";
    const auto help =
        path.empty() ? std::string{"jouleprof --help"} : "jouleprof " + path + " --help";
    if (std::smatch m; std::regex_match(text, m, k_form)) {
        return fmt::format("{}{} needs a value ({}) ({})", where, m[1].str(), m[2].str(), help);
    }
    return fmt::format("{}{} ({})", where, text, help);
}

// "Could not convert: --repeat = abc": "run: --repeat: expected a whole number, got 'abc'".
std::string
not_converted(const CLI::App* command, const std::string& text, const std::string& path) {
    static const std::regex k_form{R"(^Could not convert: (\S+) = (.*)$)"};
    std::smatch m;
    if (!std::regex_match(text, m, k_form)) {
        return fmt::format("{}: {} (jouleprof {} --help)", path, text, path);
    }
    std::string expected = "a value it can read";
    for (const CLI::Option* opt : command->get_options()) {
        if (opt->check_name(m[1].str())) {
            const auto type = opt->get_type_name();
            expected = type.find("INT") != std::string::npos ? "a whole number"
                       : type.find("FLOAT") != std::string::npos ||
                               type.find("NUMBER") != std::string::npos
                           ? "a number"
                           : expected;
        }
    }
    return fmt::format("{}: {}: expected {}, got '{}' (jouleprof {} --help)", path, m[1].str(),
                       expected, m[2].str(), path);
}

// An option the command does not have, named with its nearest ("report: unknown option
// '--jsno' (did you mean '--json'?)"); "" where every argument after the command is one.
std::string unknown_command_option(const CLI::App* command,
                                   const std::string& path,
                                   const GlobalOptions& globals,
                                   std::span<char* const> args) {
    std::vector<std::string> known;
    for (const CLI::Option* opt : command->get_options()) {
        for (const auto& s : opt->get_snames()) {
            known.push_back("-" + s);
        }
        for (const auto& l : opt->get_lnames()) {
            known.push_back("--" + l);
        }
    }
    bool after_command = false;
    for (const std::string_view arg : args) {
        if (arg == "--") {
            break;
        }
        const bool number =
            arg.size() > 1 &&
            (std::isdigit(static_cast<unsigned char>(arg[1])) != 0 || arg[1] == '.');
        if (after_command && arg.starts_with('-') && arg.size() > 1 && !number &&
            global_named(globals, arg) == nullptr) {
            auto name = std::string{arg.substr(0, arg.find('='))};
            if (!name.starts_with("--") && name.size() > 2) {
                name = name.substr(0, 2); // a short option with its value attached
            }
            if (std::ranges::find(known, name) == known.end()) {
                return fmt::format("{}: unknown option '{}'{} (jouleprof {} --help)", path, name,
                                   nearest(name, known), path);
            }
        }
        after_command = after_command || arg == command->get_name();
    }
    return {};
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
        if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
            return value_missing(error.what(), "");
        }
        return error.what();
    }
    std::string path;
    const CLI::App* command = deepest(app, path);
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
    // A global option after the command (before any "--", which starts the job's own
    // arguments): CLI11 calls it unexpected; say where it goes.
    if (dynamic_cast<const CLI::ExtrasError*>(&error) == nullptr) {
        return error.what();
    }
    const auto& command_name = parsed.front()->get_name();
    bool after_command = false;
    for (const std::string_view arg : args) {
        if (arg == "--") {
            break;
        }
        if (after_command && global_named(globals, arg) != nullptr) {
            return fmt::format("{} is a global option: give it before the command (jouleprof {} {} "
                               "...)",
                               arg.substr(0, arg.find('=')), arg, command_name);
        }
        after_command = after_command || arg == command_name;
    }
    auto unknown = unknown_command_option(command, path, globals, args);
    return unknown.empty() ? error.what() : unknown;
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
