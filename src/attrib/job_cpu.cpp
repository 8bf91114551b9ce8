// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/job_cpu.hpp"

#include "attrib/cgroup.hpp"
#include "sys/file.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sstream>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>
#include <utility>

namespace jp::attrib {
namespace {

// Moves pid into the group directory dir; an errno value on failure.
int move_into(const std::filesystem::path& dir, pid_t pid) {
    const int fd = ::open((dir / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        return errno;
    }
    const auto text = fmt::format("{}\n", pid);
    const int err = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size())
                        ? 0
                        : (errno != 0 ? errno : EIO);
    ::close(fd);
    return err;
}

// What an unprivileged monitor or a container meets: expected, not worth a note.
bool expected_refusal(int err) {
    return err == EACCES || err == EPERM || err == EROFS;
}

// A group of its own for pid under parent: its directory, or why not ("" when the
// refusal is the expected one of an unprivileged user or a read-only mount).
std::optional<std::filesystem::path>
make_group(const std::filesystem::path& parent, pid_t pid, std::string& why) {
    why.clear();
    auto dir = parent / fmt::format("jouleprof-{}", pid);
    if (::mkdir(dir.c_str(), 0755) != 0) {
        if (!expected_refusal(errno)) {
            why = fmt::format("cannot make {}: {}", dir.string(), std::strerror(errno));
        }
        return std::nullopt;
    }
    if (const int err = move_into(dir, pid); err != 0) {
        if (!expected_refusal(err)) {
            why = fmt::format("cannot move the job into {}: {}", dir.string(), std::strerror(err));
        }
        ::rmdir(dir.c_str());
        return std::nullopt;
    }
    return dir;
}

// A v1 hierarchy whose groups do not also carry `other` (cpuacct co-mounted with cpu,
// RHEL's default: a new group there is a new CPU scheduling entity, one share for the job).
bool counts_only(const std::filesystem::path& dir, const char* other) {
    std::error_code ec;
    return !std::filesystem::exists(dir / other, ec);
}

// A v2 parent that gives its children the cpu controller (a new child is weighed anew).
bool controls_cpu(const std::filesystem::path& subtree_control) {
    const auto text = sys::read_text(subtree_control);
    if (!text) {
        return false;
    }
    std::string_view t = *text;
    while (!t.empty()) {
        const auto blank = t.find_first_of(" \n");
        if (t.substr(0, blank) == "cpu") {
            return true;
        }
        t = blank == std::string_view::npos ? std::string_view{} : t.substr(blank + 1);
    }
    return false;
}

// Groups an earlier monitor made and could not remove (it was killed, or the job's
// leftovers ran on): the kernel removes only empty ones, and only if their job is gone.
void remove_stale_groups(const std::filesystem::path& parent) {
    for (const auto& name : sys::list_dir(parent, "jouleprof-")) {
        const auto pid = sys::parse_u64(std::string_view{name}.substr(10));
        if (!pid || *pid == 0 || *pid > (1U << 30)) {
            continue;
        }
        if (::kill(static_cast<pid_t>(*pid), 0) != 0 && errno == ESRCH) {
            ::rmdir((parent / name).c_str()); // fails (EBUSY) while processes are in it
        }
    }
}

} // namespace

JobCpu::JobCpu(JobCpu&&) noexcept = default;
JobCpu& JobCpu::operator=(JobCpu&&) noexcept = default;
JobCpu::~JobCpu() {
    if (m_made) {
        ::rmdir(m_dir.c_str()); // best effort: finish() says when it stays
    }
}

JobCpu JobCpu::track(const std::filesystem::path& root, pid_t pid, std::string_view way) {
    JobCpu j;
    j.m_root = root;
    j.m_pid = pid;
    const auto self = sys::read_text(sys::under_root(root, "/proc/self/cgroup"));
    const auto groups = self ? parse_proc_cgroup(*self) : ProcessGroups{};
    j.m_mounts = find_mounts(root);
    const auto& mounts = j.m_mounts;
    const bool any = way == "auto";
    const auto v2 = any || way == "cgroup-v2" ? group_dir(mounts.v2, groups.v2) : std::nullopt;
    const auto v1 =
        any || way == "cgroup-v1" ? group_dir(mounts.cpuacct, groups.cpuacct) : std::nullopt;

    // Inside a Slurm job: its group is the job; never move a task out of it.
    std::string unreadable; // a Slurm job whose group counts nothing here
    for (const auto& [path, dir, kind] :
         {std::tuple{groups.v2, v2, Kind::v2}, std::tuple{groups.cpuacct, v1, Kind::v1}}) {
        const auto job = path && dir ? slurm_job_of(*path) : std::string{};
        if (job.empty()) {
            continue;
        }
        if (j.take_slurm_group(kind, *dir, job)) {
            return j;
        }
        unreadable = job;
    }
    if (!unreadable.empty()) {
        // A Slurm group whose counter cannot be read: nothing is made inside Slurm's
        // groups (a group left there would block slurmstepd's cleanup).
        j.m_notes.push_back(
            fmt::format("Slurm job {}'s cgroup counts no CPU time here", unreadable));
        j.follow_tree(root, pid);
        return j;
    }
    // v1 cpuacct first: it counts per CPU, so per package.
    for (const auto& [parent, kind] : {std::pair{v1, Kind::v1}, std::pair{v2, Kind::v2}}) {
        if (!parent) {
            continue;
        }
        std::string why;
        if (kind == Kind::v1 ? !counts_only(*parent, "cpu.shares")
                             : controls_cpu(*parent / "cgroup.subtree_control")) {
            continue; // a group of ours there would change how the job is scheduled
        }
        remove_stale_groups(*parent);
        if (auto dir = make_group(*parent, pid, why)) {
            const bool readable = kind == Kind::v1 ? group_v1_seconds(*dir).has_value()
                                                   : group_v2_seconds(*dir).has_value();
            if (readable) {
                j.m_kind = kind;
                j.m_dir = *dir;
                j.m_made = true;
                j.m_method =
                    fmt::format("cgroup {} {}", kind == Kind::v1 ? "v1" : "v2", dir->string());
                return j;
            }
            // A group that counts nothing: the job goes back where it was, the group goes.
            (void)move_into(*parent, pid);
            ::rmdir(dir->c_str());
            why = fmt::format("{} has no CPU counter", dir->string());
        }
        if (!why.empty()) {
            j.m_notes.push_back(why);
        }
    }
    j.follow_tree(root, pid);
    return j;
}

std::optional<bool> JobCpu::contains(pid_t pid) const {
    const auto proc = [&](pid_t p, const char* file) {
        return sys::read_text(sys::under_root(m_root, fmt::format("/proc/{}/{}", p, file)));
    };
    if (m_kind == Kind::v1 || m_kind == Kind::v2) {
        const auto text = proc(pid, "cgroup");
        if (!text) {
            return std::nullopt;
        }
        const auto groups = parse_proc_cgroup(*text);
        const auto dir = m_kind == Kind::v2 ? group_dir(m_mounts.v2, groups.v2)
                                            : group_dir(m_mounts.cpuacct, groups.cpuacct);
        if (!dir) {
            return false;
        }
        const auto [end, rest] = std::ranges::mismatch(m_dir, *dir);
        return end == m_dir.end(); // the group, or one under it
    }
    // The process tree: pid or one of its ancestors is the job's first process.
    for (int depth = 0; depth < 4096 && pid > 1; ++depth) {
        if (pid == m_pid) {
            return true;
        }
        const auto text = proc(pid, "stat");
        const auto times = text ? parse_proc_stat(*text) : std::nullopt;
        if (!times) {
            return depth == 0 ? std::nullopt : std::optional{false};
        }
        pid = times->ppid;
    }
    return false;
}

void JobCpu::follow_tree(const std::filesystem::path& root, pid_t pid) {
    m_kind = Kind::tree;
    m_tree = std::make_unique<ProcTree>(root, pid);
    m_children_base_s = rusage_children_s();
    m_reaps = true;
    m_method = fmt::format("process tree of pid {} (/proc)", pid);
}

std::optional<JobCpu::Reading> JobCpu::read() {
    std::size_t budget = SIZE_MAX;
    return read(budget);
}

std::optional<JobCpu::Reading> JobCpu::read(std::size_t& budget) {
    if (budget == 0) {
        return std::nullopt;
    }
    if (m_kind != Kind::tree) {
        --budget;
    }
    if (!m_pending_dir.empty()) {
        take_pending_group();
    }
    Reading r;
    switch (m_kind) {
    case Kind::v2: {
        const auto s = group_v2_seconds(m_dir);
        if (!s) {
            return std::nullopt;
        }
        r.total_s = *s;
        break;
    }
    case Kind::v1: {
        auto s = group_v1_seconds(m_dir);
        if (!s) {
            return std::nullopt;
        }
        for (std::size_t i = 0; i < s->size(); ++i) {
            (*s)[i] -= i < m_base_per_cpu.size() ? m_base_per_cpu[i] : 0.0;
            r.total_s += (*s)[i];
        }
        r.per_cpu_s = std::move(*s);
        return r;
    }
    case Kind::tree: {
        const auto seconds = m_tree->read(budget);
        if (!seconds) {
            return std::nullopt;
        }
        r.total_s = *seconds;
        return r;
    }
    case Kind::none:
        return std::nullopt;
    }
    r.total_s -= m_base_s.value_or(0.0);
    return r;
}

namespace {

// The processes still in a job's group after the job ended, named: "the job left 2
// processes running: 4711 (sleep), 4712 (python3); ...".
std::string left_running(const std::filesystem::path& root, const std::filesystem::path& dir) {
    constexpr std::size_t k_named = 5;
    std::vector<std::string> named;
    std::size_t count = 0;
    if (auto procs = sys::read_text(dir / "cgroup.procs")) {
        std::istringstream in{*procs};
        for (long pid = 0; in >> pid; ++count) {
            if (named.size() < k_named) {
                auto comm =
                    sys::read_text(sys::under_root(root, fmt::format("/proc/{}/comm", pid)));
                std::string name = comm ? *comm : std::string{"?"};
                while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) {
                    name.pop_back();
                }
                named.push_back(fmt::format("{} ({})", pid, name));
            }
        }
    }
    if (count == 0) {
        return fmt::format("{} stays: processes the job left running are still in it",
                           dir.string());
    }
    return fmt::format("the job left {} process{} running after it ended: {}{}; its figures end "
                       "at the job's end, and {} stays until they exit",
                       count, count == 1 ? "" : "es", fmt::join(named, ", "),
                       count > named.size() ? ", …" : "", dir.string());
}

} // namespace

std::optional<JobCpu::Reading> JobCpu::finish() {
    if (m_kind == Kind::tree && m_reaps) {
        m_tree->add_reaped(rusage_children_s() - m_children_base_s);
    }
    auto last = read();
    if (m_made) {
        if (::rmdir(m_dir.c_str()) == 0 || errno == ENOENT) {
            m_made = false;
        } else {
            const int err = errno;
            m_notes.push_back(
                err == EBUSY ? left_running(m_root, m_dir)
                             : fmt::format("{} stays: {}", m_dir.string(), std::strerror(err)));
            m_made = false; // left for its processes; not removed at exit either
        }
    }
    return last;
}

} // namespace jp::attrib
