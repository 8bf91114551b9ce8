// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The options jouleprof and jouleprofd share: where sysfs is, the config
// file, the vendor libraries, a trace to replay, how much to log.
#include "config/config.hpp"
#include "sensors/host.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace jp::cli {

struct Globals {
    std::string sysfs_root;
    std::string config_path;
    std::string nvml_library;
    std::string rocm_library;
    std::string replay;
    int verbose = 0;
    bool quiet = false;
};

void add_globals(CLI::App& app, Globals& g);

// The host every backend reads from: --sysfs-root, $JOULEPROF_SYSFS_ROOT or
// the config's sysfs_root; library paths from the options or the config.
// Throws Fatal for a root or replay trace that does not exist.
[[nodiscard]] sensors::Host make_host(const Globals& g, const Config& config);

void set_log_level(const Globals& g);

} // namespace jp::cli
