// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Subcommands register themselves: each cmd_*.cpp adds its CLI11 subcommand and
// the action to run when it was chosen. app.cpp lists the register functions.
#include "config/config.hpp"
#include "sensors/host.hpp"

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <vector>

namespace jp::cli {

struct Context {
    const Config& config;
    const sensors::Host& host;
};

struct Command {
    CLI::App* app = nullptr;
    // Checks option combinations after parsing; throws CLI::ValidationError (exit 2).
    std::function<void()> validate;
    // Runs the command; returns the process exit status.
    std::function<int(const Context&)> run;
};

using Commands = std::vector<Command>;

// Accepts "500ms", "2s", "1m" into target.
CLI::Option*
add_duration(CLI::App* app, const std::string& name, Nanos& target, const std::string& help);

// Stores a number given on the command line into an optional.
CLI::Option* add_optional(CLI::App* app,
                          const std::string& name,
                          std::optional<double>& target,
                          const std::string& help);

void register_run(CLI::App& app, Commands& out);
void register_sensors(CLI::App& app, Commands& out);
void register_report(CLI::App& app, Commands& out);
void register_compare(CLI::App& app, Commands& out);
void register_sweep(CLI::App& app, Commands& out);
void register_export(CLI::App& app, Commands& out);
// compare, sweep and export together (one line in app.cpp).
void register_analysis(CLI::App& app, Commands& out);
void register_mark(CLI::App& app, Commands& out);
void register_study(CLI::App& app, Commands& out);
void register_record(CLI::App& app, Commands& out); // jouleprof record (Slurm's spank/)
void register_merge(CLI::App& app, Commands& out);  // several nodes' traces as one job

} // namespace jp::cli
