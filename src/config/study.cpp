// SPDX-License-Identifier: BSD-3-Clause
#include "config/study.hpp"

#include "config/toml_scope.hpp"
#include "sys/file.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <initializer_list>
#include <toml++/toml.h>

namespace jp {
namespace {

using Scope = TomlScope;

bool is_var_name(std::string_view s) {
    const auto head = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    };
    return !s.empty() && head(s.front()) &&
           std::ranges::all_of(s, [&](char c) { return head(c) || (c >= '0' && c <= '9'); });
}

// Checks the table's keys against allowed (which holds "name") and returns its
// required name, made of letters, digits, '.', '_' and '-'.
Result<std::string> named(const Scope& s, Keys allowed) {
    if (auto r = s.only(allowed); !r) {
        return std::unexpected(r.error());
    }
    auto name = s.string("name");
    if (!name) {
        return std::unexpected(name.error());
    }
    if (!*name) {
        return s.error(s.table, "", "needs a name = \"...\"");
    }
    if (!is_study_name(**name)) {
        return s.error(*s.table.get("name"), "name",
                       fmt::format("'{}' may hold only letters, digits, '.', '_' and '-'", **name));
    }
    return **name;
}

Result<std::vector<std::pair<std::string, std::string>>> parse_vars(const Scope& s);

Result<void> parse_header(const Scope& s, Study& out) {
    auto name = named(
        s, {"name", "repeat", "warmup", "cooldown", "baseline", "interval", "node_type", "vars"});
    if (!name) {
        return std::unexpected(name.error());
    }
    out.name = *name;
    auto vars = parse_vars(s);
    if (!vars) {
        return std::unexpected(vars.error());
    }
    out.vars = std::move(*vars);
    auto node_type = s.string("node_type");
    if (!node_type) {
        return std::unexpected(node_type.error());
    }
    if (*node_type && !is_study_name(**node_type)) {
        return s.error(*s.table.get("node_type"), "node_type",
                       "may hold only letters, digits, '.', '_' and '-'");
    }
    out.node_type = *node_type;
    for (auto r : {s.integer("repeat", 1, 1'000'000, out.repeat),
                   s.integer("warmup", 0, 1'000'000, out.warmup),
                   s.duration("cooldown", Nanos{0}, out.cooldown),
                   s.duration("baseline", Nanos{0}, out.baseline),
                   s.duration("interval", std::chrono::milliseconds{1}, out.interval)}) {
        if (!r) {
            return r;
        }
    }
    return {};
}

Result<std::vector<std::string>>
command_of(const Scope& s, const toml::node& node, std::string_view mode) {
    const auto* array = node.as_array();
    std::vector<std::string> argv;
    for (std::size_t i = 0; array != nullptr && i < array->size(); ++i) {
        const auto* arg = array->get(i)->as_string();
        if (arg == nullptr) {
            return s.error(node, fmt::format("commands.{}", mode),
                           fmt::format("argument {} is not a string", i + 1));
        }
        argv.push_back(arg->get());
    }
    if (argv.empty() || argv.front().empty()) {
        return s.error(node, fmt::format("commands.{}", mode),
                       R"(must be a non-empty array of strings: ["program", "arg", ...])");
    }
    return argv;
}

// The modes in the order they are written (toml++ keeps a table's keys sorted).
Result<std::vector<StudyMode>> parse_modes(const Scope& s, const toml::table& commands) {
    std::vector<std::pair<const toml::key*, const toml::node*>> entries;
    for (const auto& [key, value] : commands) {
        entries.emplace_back(&key, &value);
    }
    std::ranges::sort(entries, {}, [](const auto& e) {
        const auto at = e.first->source().begin;
        return std::pair{at.line, at.column};
    });
    std::vector<StudyMode> modes;
    for (const auto& [key, value] : entries) {
        if (!is_study_name(key->str())) {
            return s.error(*value, fmt::format("commands.{}", key->str()),
                           "a mode's name may hold only letters, digits, '.', '_' and '-'");
        }
        auto argv = command_of(s, *value, key->str());
        if (!argv) {
            return std::unexpected(argv.error());
        }
        modes.push_back({std::string{key->str()}, std::move(*argv)});
    }
    return modes;
}

Result<StudyWorkload> parse_workload(const Scope& s) {
    auto name = named(s, {"name", "commands"});
    if (!name) {
        return std::unexpected(name.error());
    }
    const auto* commands = s.table.get_as<toml::table>("commands");
    if (commands == nullptr || commands->empty()) {
        return s.error(s.table, "commands",
                       R"(needs [workload.commands] with MODE = ["program", "arg", ...])");
    }
    auto modes = parse_modes(s, *commands);
    if (!modes) {
        return std::unexpected(modes.error());
    }
    return StudyWorkload{*name, std::move(*modes)};
}

Result<std::string> var_value(const Scope& s, std::string_view key, const toml::node& v) {
    if (const auto* str = v.as_string()) {
        return str->get();
    }
    if (const auto* i = v.as_integer()) {
        return fmt::format("{}", i->get());
    }
    if (const auto* f = v.as_floating_point()) {
        return fmt::format("{}", f->get());
    }
    return s.error(v, fmt::format("vars.{}", key), "must be a string or a number");
}

// `vars = { name = value, ... }` of a table, if it has one.
Result<std::vector<std::pair<std::string, std::string>>> parse_vars(const Scope& s) {
    std::vector<std::pair<std::string, std::string>> out;
    const auto* node = s.table.get("vars");
    if (node != nullptr && !node->is_table()) {
        return s.error(*node, "vars", "must be a table: vars = { threads = \"2\" }");
    }
    if (node == nullptr) {
        return out;
    }
    for (const auto& [key, value] : *node->as_table()) {
        const auto var = fmt::format("vars.{}", key.str());
        if (!is_var_name(key.str())) {
            return s.error(value, var, "a placeholder name holds only letters, digits and '_'");
        }
        if (std::ranges::find(k_study_builtins, key.str()) != std::end(k_study_builtins)) {
            return s.error(value, var, fmt::format("{{{}}} is built in", key.str()));
        }
        auto v = var_value(s, key.str(), value);
        if (!v) {
            return std::unexpected(v.error());
        }
        out.emplace_back(key.str(), std::move(*v));
    }
    return out;
}

Result<StudySetting> parse_setting(const Scope& s) {
    auto name = named(s, {"name", "vars"});
    if (!name) {
        return std::unexpected(name.error());
    }
    auto vars = parse_vars(s);
    if (!vars) {
        return std::unexpected(vars.error());
    }
    return StudySetting{*name, std::move(*vars)};
}

// Each [[NAME]] entry parsed by parse(scope); names must be unique.
template <class T, class F>
Result<std::vector<T>>
parse_entries(std::string_view origin, const toml::table& root, std::string_view name, F parse) {
    std::vector<T> out;
    const auto* node = root.get(name);
    if (node == nullptr) {
        return out;
    }
    const auto* array = node->as_array();
    if (array == nullptr || !array->is_array_of_tables()) {
        return fail(ErrorKind::config,
                    fmt::format("{}:{}: {}", origin, node->source().begin.line, name),
                    fmt::format("must be tables: write [[{}]]", name));
    }
    for (std::size_t i = 0; i < array->size(); ++i) {
        const Scope s{origin, *array->get(i)->as_table(), fmt::format("[[{}]] #{}", name, i + 1)};
        auto entry = parse(s);
        if (!entry) {
            return std::unexpected(entry.error());
        }
        if (std::ranges::find(out, entry->name, &T::name) != out.end()) {
            return s.error(s.table, "name", fmt::format("'{}' is used twice", entry->name));
        }
        out.push_back(std::move(*entry));
    }
    return out;
}

Result<Study> parse_root(const toml::table& root, std::string_view origin) {
    const Scope top{origin, root, "study file"};
    if (auto r = top.only({"study", "workload", "setting"}); !r) {
        return std::unexpected(r.error());
    }
    const auto* header = root.get_as<toml::table>("study");
    if (header == nullptr) {
        return fail(ErrorKind::config, std::string{origin}, "needs a [study] table with a name");
    }
    Study study;
    if (auto r = parse_header(Scope{origin, *header, "[study]"}, study); !r) {
        return std::unexpected(r.error());
    }
    auto workloads = parse_entries<StudyWorkload>(origin, root, "workload", parse_workload);
    if (!workloads) {
        return std::unexpected(workloads.error());
    }
    if (workloads->empty()) {
        return fail(ErrorKind::config, std::string{origin},
                    "no [[workload]]: the study has nothing to measure");
    }
    auto settings = parse_entries<StudySetting>(origin, root, "setting", parse_setting);
    if (!settings) {
        return std::unexpected(settings.error());
    }
    study.workloads = std::move(*workloads);
    study.settings = std::move(*settings);
    return study;
}

} // namespace

bool is_study_name(std::string_view s) {
    return !s.empty() && std::ranges::all_of(s, [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '-';
    });
}

Result<Study> parse_study(std::string_view toml_text, std::string_view origin) {
    toml::table root;
    try {
        root = toml::parse(toml_text, origin);
    } catch (const toml::parse_error& err) {
        return fail(ErrorKind::config, fmt::format("{}:{}", origin, err.source().begin.line),
                    std::string{err.description()});
    }
    return parse_root(root, origin);
}

namespace {

// Keeps the items named (all where none is): an unknown name is an error.
template <class Item>
Result<void> keep_only(std::vector<Item>& items,
                       const std::vector<std::string>& names,
                       const char* option,
                       const char* what) {
    for (const auto& name : names) {
        if (std::ranges::find(items, name, &Item::name) == items.end()) {
            return fail(ErrorKind::config, option,
                        fmt::format("the study has no {} '{}'", what, name));
        }
    }
    if (!names.empty()) {
        std::erase_if(
            items, [&](const Item& i) { return std::ranges::find(names, i.name) == names.end(); });
    }
    return {};
}

} // namespace

Result<void> apply_overrides(Study& study,
                             const std::vector<std::string>& assignments,
                             const std::vector<std::string>& only_settings) {
    for (const auto& a : assignments) {
        const auto eq = a.find('=');
        const auto name = a.substr(0, eq);
        if (eq == std::string::npos || !is_var_name(name)) {
            return fail(ErrorKind::config, "--set", fmt::format("'{}' is not NAME=VALUE", a));
        }
        if (std::ranges::find(k_study_builtins, name) != std::end(k_study_builtins)) {
            return fail(ErrorKind::config, "--set", fmt::format("{{{}}} is built in", name));
        }
        const auto value = a.substr(eq + 1);
        for (auto* vars : {&study.vars}) {
            std::erase_if(*vars, [&](const auto& v) { return v.first == name; });
            vars->emplace_back(name, value);
        }
        for (auto& setting : study.settings) {
            for (auto& [key, v] : setting.vars) {
                v = key == name ? value : v;
            }
        }
    }
    return keep_only(study.settings, only_settings, "--setting", "setting");
}

Result<void> keep_workloads(Study& study, const std::vector<std::string>& only) {
    return keep_only(study.workloads, only, "--workload", "workload");
}

Result<Study> load_study(const std::filesystem::path& path) {
    auto text = sys::read_text(path);
    if (!text) {
        return std::unexpected(text.error());
    }
    auto study = parse_study(*text, path.string());
    if (study) {
        study->source = path;
    }
    return study;
}

} // namespace jp
