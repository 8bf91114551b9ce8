// SPDX-License-Identifier: BSD-3-Clause
#include "cli/usage_command_hints.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <regex>
#include <vector>

namespace jp::cli::usage {
namespace {

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

std::string help_of(const std::string& path) {
    return path.empty() ? std::string{"jouleprof --help"} : "jouleprof " + path + " --help";
}

// An argument that looks like an option: a dash and a letter, not a negative number.
bool option_like(std::string_view arg) {
    return arg.size() > 1 && arg.starts_with('-') && arg != "--" &&
           std::isdigit(static_cast<unsigned char>(arg[1])) == 0 && arg[1] != '.';
}

} // namespace

const CLI::App* deepest(const CLI::App& app, std::string& path) {
    const CLI::App* at = &app;
    for (auto subs = at->get_subcommands(); !subs.empty(); subs = at->get_subcommands()) {
        at = subs.front();
        path += path.empty() ? at->get_name() : " " + at->get_name();
    }
    return at;
}

std::string missing_arguments(const CLI::App& command, const std::string& path) {
    std::vector<const CLI::Option*> missing;
    for (const CLI::Option* opt : command.get_options()) {
        if (opt->get_required() && opt->count() == 0) {
            missing.push_back(opt);
        }
    }
    if (missing.empty()) {
        return {};
    }
    if (missing.size() == 1) {
        const auto what = what_it_is(*missing.front());
        return fmt::format("{}: {} is missing{}{} ({})", path, display_name(*missing.front()),
                           what.empty() ? "" : ": ", what, help_of(path));
    }
    std::vector<std::string> names;
    names.reserve(missing.size());
    for (const auto* opt : missing) {
        names.push_back(display_name(*opt));
    }
    const auto last = names.back();
    names.pop_back();
    return fmt::format("{}: {} and {} are missing ({})", path, fmt::join(names, ", "), last,
                       help_of(path));
}

std::string value_missing(const std::string& text, const std::string& path) {
    static const std::regex k_form{R"(^(-[^:\s]+): \d+ required (\S+) missing$)"};
    const auto where = path.empty() ? std::string{} : path + ": ";
    if (std::smatch m; std::regex_match(text, m, k_form)) {
        return fmt::format("{}{} needs a value ({}) ({})", where, m[1].str(), m[2].str(),
                           help_of(path));
    }
    return fmt::format("{}{} ({})", where, text, help_of(path));
}

std::string
not_converted(const CLI::App& command, const std::string& text, const std::string& path) {
    static const std::regex k_form{R"(^Could not convert: (\S+) = ([\s\S]*)$)"};
    std::smatch m;
    if (!std::regex_match(text, m, k_form)) {
        return fmt::format("{}: {} ({})", path, text, help_of(path));
    }
    for (const CLI::Option* opt : command.get_options()) {
        if (!opt->check_name(m[1].str())) {
            continue;
        }
        if (opt->get_expected_max() == 0) { // a flag
            return fmt::format("{}: {} takes no value, got '{}' ({})", path, m[1].str(), m[2].str(),
                               help_of(path));
        }
        const auto type = opt->get_type_name();
        const char* as = type.find("INT") != std::string::npos     ? "a whole number"
                         : type.find("FLOAT") != std::string::npos ? "a number"
                                                                   : "its value";
        return fmt::format("{}: {}: cannot read '{}' as {} ({})", path, m[1].str(), m[2].str(), as,
                           help_of(path));
    }
    return fmt::format("{}: {}: cannot read '{}' ({})", path, m[1].str(), m[2].str(),
                       help_of(path));
}

std::string unknown_program_option(std::string_view name, const GlobalOptions& globals) {
    return fmt::format("unknown option '{}'{} (jouleprof --help lists them; a command's own "
                       "options go after it)",
                       name, nearest(name, names_of(globals)));
}

std::string before_command(const CLI::App& top_command,
                           const GlobalOptions& globals,
                           std::span<char* const> args) {
    const auto command_options = option_names(top_command);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view arg = args[i];
        if (arg == "--" || arg == top_command.get_name() || !arg.starts_with('-')) {
            return {};
        }
        if (is_global_arg(globals, arg)) {
            const auto* g = global_named(globals, arg);
            if (g != nullptr && g->takes_value && value_follows(arg)) {
                ++i; // its value
            }
            continue;
        }
        const auto name = option_name(arg);
        if (std::ranges::find(command_options, name) != command_options.end()) {
            return fmt::format("{} is an option of {}: give it after the command (jouleprof {} "
                               "{} ...)",
                               name, top_command.get_name(), top_command.get_name(), name);
        }
        return unknown_program_option(name, globals);
    }
    return {};
}

std::string after_command(const CLI::App& top_command,
                          const CLI::App& command,
                          const std::string& path,
                          const GlobalOptions& globals,
                          std::span<char* const> args) {
    // Between "study" and "report" the options are study's; after "report", report's.
    const CLI::App* in = nullptr;
    std::string in_path;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view arg = args[i];
        if (arg == "--") {
            break;
        }
        const bool separate = value_follows(arg);
        if (in != nullptr && option_like(arg)) {
            const auto name = option_name(arg);
            const auto* opt = in->get_option_no_throw(name);
            if (opt != nullptr) {
                if (separate && opt->get_expected_min() > 0) {
                    ++i; // its value, whatever it looks like ("--price -nan", "-l -x")
                }
                continue;
            }
            if (is_global_arg(globals, arg)) {
                const auto* g = global_named(globals, arg);
                const bool valued = g != nullptr && g->takes_value && separate;
                const auto given = valued && i + 1 < args.size()
                                       ? fmt::format("{} {}", arg, args[i + 1])
                                       : std::string{arg};
                return fmt::format("{} is a global option: give it before the command "
                                   "(jouleprof {} {} ...)",
                                   name, given, top_command.get_name());
            }
            // A cluster of short ones ("-qx") is named whole: which letter is wrong is not
            // known.
            const auto named = arg.starts_with("--") || arg.size() <= 2
                                   ? name
                                   : std::string{arg.substr(0, arg.find('='))};
            return fmt::format("{}: unknown option '{}'{} ({})", in_path, named,
                               nearest(named, option_names(*in)), help_of(in_path));
        }
        if (in == nullptr && arg == top_command.get_name()) {
            in = &top_command;
            in_path = top_command.get_name();
        } else if (in == &top_command && &command != &top_command && arg == command.get_name()) {
            in = &command;
            in_path = path;
        }
    }
    return {};
}

} // namespace jp::cli::usage
