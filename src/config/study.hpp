// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A study file (TOML): the workloads with a command per mode, the settings
// they run under, and how each is measured (repeats, warm-ups, cooldowns, an
// idle baseline). Every key is checked: an unknown one is an error, so a typo
// never silently changes a study. docs/study.md describes the format.
#include "core/duration.hpp"
#include "core/error.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jp {

struct StudyMode {
    std::string name;                 // "train", "predict"
    std::vector<std::string> command; // argv, with {placeholders}
};

struct StudyWorkload {
    std::string name;
    std::vector<StudyMode> modes; // in the order written: the order they run in
};

struct StudySetting {
    std::string name;
    std::vector<std::pair<std::string, std::string>> vars; // placeholder name -> value
};

struct Study {
    std::string name;
    int repeat = 5; // measured runs per cell
    int warmup = 1; // runs before them, recorded as kind "warmup"
    Nanos cooldown{0};
    Nanos baseline{0}; // idle node measured first; 0: none
    Nanos interval{std::chrono::milliseconds{500}};
    std::optional<std::string> node_type;
    // [study] vars: placeholders for every setting; a setting's own vars win.
    std::vector<std::pair<std::string, std::string>> vars;
    std::vector<StudyWorkload> workloads;
    std::vector<StudySetting> settings; // empty: one implicit setting, not named in labels
    std::filesystem::path source;
};

// Placeholders every command may use besides its setting's vars.
inline constexpr std::string_view k_study_builtins[] = {"dir", "mode", "workload", "setting"};

// Names of studies, workloads, modes, settings and node types: letters,
// digits, '.', '_' and '-' (no '/' or '@', which separate them in labels).
[[nodiscard]] bool is_study_name(std::string_view s);

// Errors are one line: "<origin>:<line>: <table> <key>: <problem>".
[[nodiscard]] Result<Study> parse_study(std::string_view toml_text, std::string_view origin);
[[nodiscard]] Result<Study> load_study(const std::filesystem::path& path);

// The command line's say: `--set NAME=VALUE` sets a var for every setting
// (over the file's values), `--setting NAME` keeps only the named settings.
[[nodiscard]] Result<void> apply_overrides(Study& study,
                                           const std::vector<std::string>& assignments,
                                           const std::vector<std::string>& only_settings);
// `--workload NAME` keeps only the named workloads (an unknown name is an error).
[[nodiscard]] Result<void> keep_workloads(Study& study, const std::vector<std::string>& only);

} // namespace jp
