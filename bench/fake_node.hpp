// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A fake two-socket powercap tree for benchmarks (package, core and dram zone
// per socket: 6 energy counters), in a new temp directory.
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <string>
#include <unistd.h>

namespace jp::bench {

inline void write_file(const std::filesystem::path& p, const std::string& content) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream{p} << content;
}

inline std::filesystem::path fake_server(std::string_view tag) {
    auto root =
        std::filesystem::temp_directory_path() / fmt::format("jp-bench-{}-{}", tag, ::getpid());
    const auto base = root / "sys/class/powercap";
    const std::pair<const char*, const char*> zones[] = {
        {"intel-rapl:0", "package-0"}, {"intel-rapl:0:0", "core"}, {"intel-rapl:0:1", "dram"},
        {"intel-rapl:1", "package-1"}, {"intel-rapl:1:0", "core"}, {"intel-rapl:1:1", "dram"}};
    for (const auto& [id, name] : zones) {
        write_file(base / id / "name", std::string{name} + "\n");
        write_file(base / id / "energy_uj", "124599532281\n");
        write_file(base / id / "max_energy_range_uj", "262143328850\n");
    }
    return root;
}

} // namespace jp::bench
