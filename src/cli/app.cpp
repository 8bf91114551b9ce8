// SPDX-License-Identifier: BSD-3-Clause
#include "cli/app.hpp"

#include "cli/command.hpp"
#include "cli/globals.hpp"
#include "cli/usage_hints.hpp"
#include "core/build_info.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "process/runner.hpp"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <span>
#include <unistd.h>

namespace jp::cli {
namespace {

Config load_config_or_throw(const Globals& g) {
    if (g.config_path.empty()) {
        return {};
    }
    auto c = load_config(g.config_path);
    if (!c) {
        throw Fatal(c.error().message());
    }
    return *c;
}

// The command's exit status, unless what it printed did not reach stdout
// (a full disk, a closed pipe): then one line and a non-zero status.
int stdout_written(int status) {
    errno = 0;
    std::cout.flush();
    const bool flushed = std::fflush(stdout) == 0;
    if (flushed && (std::ferror(stdout) == 0) && std::cout.good()) {
        return status;
    }
    // errno is that of the failed write only when the failure was just now.
    std::fprintf(stderr,
                 "jouleprof: error: cannot write to standard output: %s; the output is "
                 "incomplete\n",
                 errno != 0 ? std::strerror(errno) : "the disk is full or the reader went away");
    return status != 0 ? status : 1;
}

} // namespace

CLI::Option*
add_duration(CLI::App* app, const std::string& name, Nanos& target, const std::string& help) {
    return app->add_option_function<std::string>(
        name,
        [&target, name](const std::string& text) {
            auto d = parse_duration(text);
            if (!d) {
                throw CLI::ValidationError(name, d.error().detail);
            }
            target = *d;
        },
        help);
}

int main_entry(int argc, char** argv) {
    process::block_forwarded_signals(); // before any thread: all inherit the mask
    CLI::App app{"jouleprof: how much energy a job really uses", "jouleprof"};
    app.set_version_flag("--version", jp::version_line("jouleprof"));
    app.require_subcommand(1);
    Globals g;
    add_globals(app, g);

    Commands commands;
    for (auto* add : {register_run, register_sensors, register_report, register_mark,
                      register_study, register_record, register_merge}) {
        add(app, commands);
    }
    register_analysis(app, commands); // compare, sweep, export

    try {
        app.parse(argc, argv);
        for (const auto& c : commands) {
            if (c.app->parsed() && c.validate) {
                c.validate();
            }
        }
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        const auto args = std::span<char* const>{argv, static_cast<std::size_t>(argc)}.subspan(1);
        // One line, whatever the user typed into it (a newline, an escape sequence).
        std::fprintf(stderr, "jouleprof: error: %s\n",
                     one_line(explain_parse_error(app, args, e), 1000).c_str());
        return 2;
    }
    set_log_level(g);
    try {
        const Config config = load_config_or_throw(g);
        const auto host = make_host(g, config);
        for (const auto& c : commands) {
            if (c.app->parsed()) {
                return stdout_written(c.run(Context{config, host}));
            }
        }
        return 2;
    } catch (const Fatal& e) {
        std::fprintf(stderr, "jouleprof: error: %s\n", e.what());
        return 2;
    }
}

} // namespace jp::cli
