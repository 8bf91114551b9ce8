// SPDX-License-Identifier: BSD-3-Clause
#include "cli/usage_words.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace jp::cli::usage {

GlobalOptions globals_of(const CLI::App& app) {
    GlobalOptions out;
    for (const auto* opt : app.get_options()) {
        const bool value = opt->get_expected_max() != 0; // a flag expects none
        for (const auto& s : opt->get_snames()) {
            out.push_back({"-" + s, value});
        }
        for (const auto& l : opt->get_lnames()) {
            out.push_back({"--" + l, value});
        }
    }
    return out;
}

std::string option_name(std::string_view arg) {
    auto name = std::string{arg.substr(0, arg.find('='))};
    if (!name.starts_with("--") && name.size() > 2) {
        name = name.substr(0, 2);
    }
    return name;
}

bool value_follows(std::string_view arg) {
    return arg.find('=') == std::string_view::npos && (arg.starts_with("--") || arg.size() == 2);
}

const GlobalOption* global_named(const GlobalOptions& globals, std::string_view arg) {
    const auto it = std::ranges::find(globals, option_name(arg), &GlobalOption::name);
    return it == globals.end() ? nullptr : &*it;
}

bool is_global_arg(const GlobalOptions& globals, std::string_view arg) {
    if (arg.starts_with("--") || arg.size() <= 2) {
        return global_named(globals, arg) != nullptr;
    }
    for (std::size_t i = 1; i < arg.size(); ++i) { // a cluster: "-qv", "-vcFILE"
        const std::string name{'-', arg[i]};
        const auto it = std::ranges::find(globals, name, &GlobalOption::name);
        if (it == globals.end()) {
            return false;
        }
        if (it->takes_value) {
            return true; // the rest is its value
        }
    }
    return true;
}

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
        if (g != nullptr && g->takes_value && value_follows(arg)) {
            ++i;
        }
    }
    return {};
}

std::vector<std::string> names_of(const GlobalOptions& options) {
    std::vector<std::string> out;
    out.reserve(options.size());
    for (const auto& o : options) {
        out.push_back(o.name);
    }
    return out;
}

std::vector<std::string> option_names(const CLI::App& command) {
    return names_of(globals_of(command));
}

namespace {

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

} // namespace

std::string nearest(std::string_view word, std::span<const std::string> names) {
    if (word.size() <= 2 && word.starts_with('-')) {
        return {};
    }
    std::string_view best;
    std::size_t best_distance = 3;
    for (const std::string_view name : names) {
        if (name.size() <= 2 && name.starts_with('-')) {
            continue; // "-h" is two edits from every short name
        }
        if (const auto d = edit_distance(word, name); d < best_distance) {
            best = name;
            best_distance = d;
        }
    }
    return best.empty() ? std::string{} : fmt::format(" (did you mean '{}'?)", best);
}

} // namespace jp::cli::usage
