// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The daemon engine the jouleprofd fuzz targets serve from: a small powercap
// tree made once per process, removed at exit.
#include "daemon/engine.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace jp::fuzz {

// The tree's directory, removed at exit (after the engine reading it is gone:
// atexit runs in reverse order of registration, and this is registered first).
inline char g_daemon_dir[] = "/tmp/jp-fuzz-daemon-XXXXXX";

inline void remove_daemon_tree() {
    std::error_code ec;
    std::filesystem::remove_all(g_daemon_dir, ec);
}

inline std::filesystem::path make_daemon_tree() {
    char* dir = g_daemon_dir;
    if (::mkdtemp(dir) == nullptr) {
        std::abort();
    }
    std::atexit(remove_daemon_tree);
    const std::filesystem::path zone =
        std::filesystem::path{dir} / "sys/class/powercap/intel-rapl:0";
    std::filesystem::create_directories(zone);
    for (const auto& [file, value] : {std::pair{"name", "package-0\n"},
                                      {"energy_uj", "1000000\n"},
                                      {"max_energy_range_uj", "262143328850\n"},
                                      {"enabled", "1\n"}}) {
        std::ofstream{zone / file} << value;
    }
    return dir;
}

inline jp::daemon::Engine& daemon_engine() {
    static const auto root = make_daemon_tree();
    static const auto e = [] {
        jp::daemon::DaemonConfig config;
        config.sensors.disabled.emplace("perf_rapl");
        auto started = jp::daemon::Engine::start(jp::sensors::Host::with_root(root), config);
        if (!started) {
            std::abort();
        }
        return std::move(*started);
    }();
    return *e;
}

} // namespace jp::fuzz
