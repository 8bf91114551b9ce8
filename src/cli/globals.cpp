// SPDX-License-Identifier: BSD-3-Clause
#include "cli/globals.hpp"

#include "core/log.hpp"
#include "sys/dynamic_library.hpp"
#include "trace/reader.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <unistd.h>
#include <utility>

namespace jp::cli {

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

sensors::Host make_host(const Globals& g, const Config& config) {
    sensors::Host host;
    if (!g.sysfs_root.empty()) {
        host.sysfs_root = g.sysfs_root;
    } else if (const char* env = std::getenv("JOULEPROF_SYSFS_ROOT");
               env != nullptr && (*env != 0)) {
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
    // What the command line asks for explicitly is honoured or is an error,
    // never a note and a silent fallback to other sensors.
    if (!g.replay.empty()) {
        if (auto r = trace::Reader::open(g.replay); !r) {
            throw Fatal("--replay " + r.error().message());
        }
    }
    // A library the config file names is as explicit as the option (the option
    // wins), unless the config also disables that backend. A name without a
    // slash is looked up as dlopen looks it up.
    struct Named {
        std::string what, path, backend;
        bool from_option;
    };
    for (const auto& [what, path, backend, from_option] :
         {Named{g.nvml_library.empty() ? "[sensors.nvml] library" : "--nvml-library",
                host.nvml_library, "nvml", !g.nvml_library.empty()},
          Named{g.rocm_library.empty() ? "[sensors.rocm_smi] library" : "--rocm-library",
                host.rocm_library, "rocm_smi", !g.rocm_library.empty()}}) {
        if (path.empty() || (!from_option && config.disabled.contains(backend))) {
            continue;
        }
        if (path.find('/') != std::string::npos && !std::filesystem::is_regular_file(path, ec)) {
            throw Fatal(fmt::format("{} {}: no such file", what, path));
        }
        if (auto lib = sys::DynamicLibrary::open({path}); !lib) {
            throw Fatal(fmt::format("{} {}: cannot be loaded: {}", what, path, lib.error().detail));
        }
    }
    host.is_root = ::geteuid() == 0;
    host.config = &config; // [node] overrides, disabled backends, BMC and Slurm settings
    host.daemon_socket = config.daemon_socket.value_or("");
    host.use_daemon = !config.disabled.contains("jouleprofd");
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

} // namespace jp::cli
