// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/cgroup.hpp"

#include "sys/file.hpp"

#include <charconv>
#include <system_error>

namespace jp::attrib {
namespace {

bool is_dir(const std::filesystem::path& p) {
    std::error_code ec;
    return std::filesystem::is_directory(p, ec);
}

bool has_file(const std::filesystem::path& p) {
    std::error_code ec;
    return std::filesystem::exists(p, ec);
}

// A path from the kernel's file: absolute, no "." or ".." step (a fake or hostile
// file must not lead the reader out of the hierarchy).
bool safe_path(std::string_view p) {
    if (!p.starts_with('/')) {
        return false;
    }
    while (!p.empty()) {
        p.remove_prefix(1);
        const auto slash = p.find('/');
        const auto step = p.substr(0, slash);
        if (step == "." || step == "..") {
            return false;
        }
        p = slash == std::string_view::npos ? std::string_view{} : p.substr(slash);
    }
    return true;
}

bool names_controller(std::string_view list, std::string_view controller) {
    while (!list.empty()) {
        const auto comma = list.find(',');
        if (list.substr(0, comma) == controller) {
            return true;
        }
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    }
    return false;
}

} // namespace

CgroupMounts find_mounts(const std::filesystem::path& root) {
    CgroupMounts m;
    const auto base = sys::under_root(root, "/sys/fs/cgroup");
    if (has_file(base / "cgroup.controllers")) {
        m.v2 = base;
    } else if (has_file(base / "unified" / "cgroup.controllers")) {
        m.v2 = base / "unified";
    }
    for (auto [name, slot] : {std::pair{"cpuacct", &m.cpuacct}, std::pair{"cpuset", &m.cpuset},
                              std::pair{"memory", &m.memory}}) {
        if (!m.v2 || *m.v2 != base) {
            if (const auto dir = base / name;
                is_dir(dir) && !has_file(dir / "cgroup.controllers")) {
                *slot = dir;
            }
        }
    }
    return m;
}

ProcessGroups parse_proc_cgroup(std::string_view text) {
    ProcessGroups g;
    while (!text.empty()) {
        const auto eol = text.find('\n');
        const auto line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
        const auto c1 = line.find(':');
        const auto c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
        if (c2 == std::string_view::npos) {
            continue;
        }
        const auto controllers = line.substr(c1 + 1, c2 - c1 - 1);
        const auto path = line.substr(c2 + 1);
        if (!safe_path(path)) {
            continue;
        }
        if (line.substr(0, c1) == "0" && controllers.empty()) {
            g.v2 = std::string{path};
            continue;
        }
        for (auto [name, slot] :
             {std::pair{"cpuacct", &g.cpuacct}, std::pair{"cpuset", &g.cpuset},
              std::pair{"memory", &g.memory}, std::pair{"freezer", &g.freezer}}) {
            if (names_controller(controllers, name)) {
                *slot = std::string{path};
            }
        }
    }
    return g;
}

std::optional<std::filesystem::path> group_dir(const std::optional<std::filesystem::path>& mount,
                                               const std::optional<std::string>& path) {
    if (!mount || !path || !safe_path(*path)) {
        return std::nullopt;
    }
    return path->size() == 1 ? *mount : *mount / std::string_view{*path}.substr(1);
}

std::optional<std::uint64_t> parse_cpu_stat_usage_ns(std::string_view text) {
    constexpr std::string_view key = "usage_usec ";
    while (!text.empty()) {
        const auto eol = text.find('\n');
        const auto line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
        if (line.starts_with(key)) {
            const auto us = sys::parse_u64(sys::trim(line.substr(key.size())));
            if (!us || *us > UINT64_MAX / 1000) {
                return std::nullopt;
            }
            return *us * 1000;
        }
    }
    return std::nullopt;
}

std::optional<std::vector<std::uint64_t>> parse_usage_percpu(std::string_view text) {
    text = sys::trim(text);
    std::vector<std::uint64_t> ns;
    while (!text.empty()) {
        const auto blank = text.find(' ');
        const auto v = sys::parse_u64(text.substr(0, blank));
        if (!v || ns.size() >= 65536) {
            return std::nullopt;
        }
        ns.push_back(*v);
        text = blank == std::string_view::npos ? std::string_view{} : sys::trim(text.substr(blank));
    }
    return ns.empty() ? std::nullopt : std::optional{std::move(ns)};
}

std::optional<std::uint64_t> parse_memory_limit(std::string_view text) {
    const auto v = sys::parse_u64(sys::trim(text));
    if (!v || *v >= (std::uint64_t{1} << 62)) {
        return std::nullopt; // "max", junk, or v1's page-rounded LONG_MAX
    }
    return *v;
}

std::string slurm_job_of(std::string_view path) {
    while (!path.empty()) {
        const auto slash = path.find('/');
        const auto step = path.substr(0, slash);
        path = slash == std::string_view::npos ? std::string_view{} : path.substr(slash + 1);
        if (step.starts_with("job_") && step.size() > 4 && sys::parse_u64(step.substr(4))) {
            return std::string{step.substr(4)};
        }
    }
    return {};
}

std::string slurm_step_group(std::string_view path) {
    std::size_t job_end = std::string_view::npos;
    for (std::size_t at = 0; at < path.size();) {
        const auto slash = path.find('/', at);
        const auto end = slash == std::string_view::npos ? path.size() : slash;
        const auto part = path.substr(at, end - at);
        if (job_end == std::string_view::npos) {
            if (part.starts_with("job_") && part.size() > 4 && sys::parse_u64(part.substr(4))) {
                job_end = end;
            }
        } else if (part.starts_with("step_") && part.size() > 5) {
            return std::string{path.substr(0, end)};
        } else {
            break; // the step, when there is one, comes right after the job
        }
        at = end + 1;
    }
    return job_end == std::string_view::npos ? std::string{} : std::string{path.substr(0, job_end)};
}

std::optional<double> group_v2_seconds(const std::filesystem::path& dir) {
    const auto text = sys::read_text(dir / "cpu.stat");
    const auto ns = text ? parse_cpu_stat_usage_ns(*text) : std::nullopt;
    return ns ? std::optional{static_cast<double>(*ns) * 1e-9} : std::nullopt;
}

std::optional<std::vector<double>> group_v1_seconds(const std::filesystem::path& dir) {
    const auto text = sys::read_text(dir / "cpuacct.usage_percpu");
    const auto ns = text ? parse_usage_percpu(*text) : std::nullopt;
    if (!ns) {
        return std::nullopt;
    }
    std::vector<double> s;
    s.reserve(ns->size());
    for (const auto v : *ns) {
        s.push_back(static_cast<double>(v) * 1e-9);
    }
    return s;
}

} // namespace jp::attrib
