#include "cli/app.hpp"

#include "cli/command.hpp"
#include "core/log.hpp"
#include "jp_version.hpp"
#include "process/runner.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace jp::cli {
namespace {

struct Globals {
    std::string sysfs_root;
    std::string config_path;
    std::string nvml_library;
    std::string rocm_library;
    std::string replay;
    int verbose = 0;
    bool quiet = false;
};

void add_globals(CLI::App& app, Globals& g) {
    app.add_option("--sysfs-root", g.sysfs_root,
                   "Root under which /sys and /proc are read (default $JOULEPROF_SYSFS_ROOT or /)");
    app.add_option("-c,--config", g.config_path, "TOML config: node model and sensor overrides");
    app.add_option("--nvml-library", g.nvml_library, "Path of libnvidia-ml.so to load");
    app.add_option("--rocm-library", g.rocm_library, "Path of librocm_smi64.so to load");
    app.add_option("--replay", g.replay, "Play a recorded trace back as the node's sensors");
    app.add_flag("-v,--verbose", g.verbose, "More messages (-vv for debug)");
    app.add_flag("-q,--quiet", g.quiet, "Errors only");
}

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

sensors::Host make_host(const Globals& g, const Config& config) {
    sensors::Host host;
    if (!g.sysfs_root.empty()) {
        host.sysfs_root = g.sysfs_root;
    } else if (const char* env = std::getenv("JOULEPROF_SYSFS_ROOT"); env != nullptr && *env) {
        host.sysfs_root = env;
    } else if (config.sysfs_root) {
        host.sysfs_root = *config.sysfs_root;
    }
    std::error_code ec;
    if (!std::filesystem::is_directory(host.sysfs_root, ec)) {
        throw Fatal("sysfs root '" + host.sysfs_root.string() + "' is not a directory");
    }
    host.nvml_library = !g.nvml_library.empty() ? g.nvml_library : config.nvml_library.value_or("");
    host.rocm_library = !g.rocm_library.empty() ? g.rocm_library : config.rocm_library.value_or("");
    host.replay_trace = g.replay;
    if (!g.replay.empty() && !std::filesystem::is_regular_file(g.replay, ec)) {
        throw Fatal("replay trace '" + g.replay + "' does not exist");
    }
    host.is_root = ::geteuid() == 0;
    return host;
}

void set_log_level(const Globals& g) {
    if (g.quiet) {
        log::set_level(log::Level::error);
    } else if (g.verbose >= 2) {
        log::set_level(log::Level::debug);
    } else if (g.verbose == 1) {
        log::set_level(log::Level::info);
    }
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
    app.set_version_flag("--version", JP_VERSION);
    app.require_subcommand(1);
    Globals g;
    add_globals(app, g);

    Commands commands;
    for (auto* add :
         {register_run, register_sensors, register_report, register_mark, register_study}) {
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
        std::fprintf(stderr, "jouleprof: error: %s\n", e.what());
        return 2;
    }
    set_log_level(g);
    try {
        const Config config = load_config_or_throw(g);
        const auto host = make_host(g, config);
        for (const auto& c : commands) {
            if (c.app->parsed()) {
                return c.run(Context{config, host});
            }
        }
        return 2;
    } catch (const Fatal& e) {
        std::fprintf(stderr, "jouleprof: error: %s\n", e.what());
        return 2;
    }
}

} // namespace jp::cli
