// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/node_cpu.hpp"

#include "sensors/estimate/proc_stat.hpp"

#include <algorithm>
#include <unistd.h>

namespace jp::attrib {

std::optional<NodeCpu> NodeCpu::open(const std::filesystem::path& root) {
    NodeCpu n;
    n.m_buf.resize(1 << 16);
    const auto stat = sys::under_root(root, "/proc/stat");
    auto text = sys::read_text(stat);
    if (!text) {
        return std::nullopt;
    }
    const auto per_cpu = sensors::estimate::parse_per_cpu(*text);
    if (!per_cpu || per_cpu->empty()) {
        return std::nullopt;
    }
    for (const auto& [id, t] : *per_cpu) {
        n.m_cpus.push_back(id);
    }
    const auto mounts = find_mounts(root);
    if (mounts.cpuacct) {
        if (auto f = sys::PolledFile::open(*mounts.cpuacct / "cpuacct.usage_percpu")) {
            std::array<char, 1 << 12> probe{};
            if (auto t = f->read(probe); t && parse_usage_percpu(*t)) {
                n.m_file = std::move(*f);
                n.m_cpuacct = true;
                n.m_source = n.m_file.path().string();
                return n;
            }
        }
    }
    auto f = sys::PolledFile::open(stat);
    if (!f) {
        return std::nullopt;
    }
    n.m_file = std::move(*f);
    const long hz = ::sysconf(_SC_CLK_TCK);
    n.m_tick_s = hz > 0 ? 1.0 / static_cast<double>(hz) : 0.01;
    n.m_source = stat.string();
    return n;
}

std::optional<std::vector<double>> NodeCpu::read() const {
    auto text = m_file.read(m_buf);
    // A file that fills the buffer may hold more (/proc/stat of a node with ~650 CPUs or
    // more passes 64 KiB): read again with room to spare, up to 16 MiB.
    constexpr std::size_t k_most = std::size_t{16} << 20;
    while (text && text->size() == m_buf.size() && m_buf.size() < k_most) {
        m_buf.resize(m_buf.size() * 2);
        text = m_file.read(m_buf);
    }
    if (!text) {
        return std::nullopt;
    }
    std::vector<double> busy;
    if (m_cpuacct) {
        const auto ns = parse_usage_percpu(*text);
        if (!ns) {
            return std::nullopt;
        }
        busy.reserve(ns->size());
        for (const auto v : *ns) {
            busy.push_back(static_cast<double>(v) * 1e-9);
        }
        return busy;
    }
    const auto per_cpu = sensors::estimate::parse_per_cpu(*text);
    if (!per_cpu) {
        return std::nullopt;
    }
    for (const auto& [id, t] : *per_cpu) {
        if (id < 0 || id >= 65536) {
            return std::nullopt;
        }
        if (static_cast<std::size_t>(id) >= busy.size()) {
            busy.resize(static_cast<std::size_t>(id) + 1, 0.0);
        }
        busy[static_cast<std::size_t>(id)] = static_cast<double>(t.busy_ticks) * m_tick_s;
    }
    return busy;
}

} // namespace jp::attrib
