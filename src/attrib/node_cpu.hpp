// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The node's busy CPU time per CPU, cumulative: the root cpuacct group's
// usage_percpu where cgroup v1 has one (nanoseconds, the same scheduler clock
// the job's group counts in), else /proc/stat's per-CPU ticks (USER_HZ: 10 ms steps).
#include "attrib/cgroup.hpp"
#include "sys/file.hpp"

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace jp::attrib {

class NodeCpu {
public:
    // root: where /proc and /sys/fs/cgroup are read (the real "/" outside tests).
    static std::optional<NodeCpu> open(const std::filesystem::path& root);
    // Busy seconds per CPU id (index: CPU id; offline CPUs read 0), cumulative.
    [[nodiscard]] std::optional<std::vector<double>> read() const;
    [[nodiscard]] const std::string& source() const noexcept { return m_source; }
    // The CPUs online when opened.
    [[nodiscard]] const std::vector<int>& cpus() const noexcept { return m_cpus; }

private:
    sys::PolledFile m_file;
    bool m_cpuacct = false;
    double m_tick_s = 0.01;
    std::string m_source;
    std::vector<int> m_cpus;
    mutable std::vector<char> m_buf;
};

} // namespace jp::attrib
