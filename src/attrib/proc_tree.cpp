// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/proc_tree.hpp"

#include "sys/file.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fmt/format.h>
#include <set>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

namespace jp::attrib {
namespace {

// The numbers of a "children" file ("123 456 ").
std::vector<pid_t> pids_in(std::string_view text) {
    std::vector<pid_t> pids;
    while (!text.empty()) {
        const auto blank = text.find_first_of(" \n");
        if (const auto v = sys::parse_u64(text.substr(0, blank)); v && *v > 0 && *v < (1U << 30)) {
            pids.push_back(static_cast<pid_t>(*v));
        }
        text = blank == std::string_view::npos ? std::string_view{} : text.substr(blank + 1);
    }
    return pids;
}

} // namespace

std::optional<ProcTimes> parse_proc_stat(std::string_view text) {
    const auto close = text.rfind(')');
    if (close == std::string_view::npos) {
        return std::nullopt;
    }
    // After "pid (comm) ": state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
    text.remove_prefix(close + 1);
    std::uint64_t f[18] = {};
    int n = 3;
    while (!text.empty() && n <= 17) {
        text.remove_prefix(std::min(text.find_first_not_of(' '), text.size()));
        const auto blank = text.find(' ');
        const auto word = text.substr(0, blank);
        if (n == 4 || n >= 14) { // the others may be negative (tpgid -1)
            // cutime/cstime are signed in the kernel's format (long); never negative in practice.
            const auto v = sys::parse_u64(word);
            if (!v) {
                return std::nullopt;
            }
            f[n] = *v;
        }
        ++n;
        text = blank == std::string_view::npos ? std::string_view{} : text.substr(blank);
    }
    if (n <= 17 || f[4] > (1U << 30)) {
        return std::nullopt;
    }
    return ProcTimes{static_cast<pid_t>(f[4]), f[14] + f[15], f[16] + f[17]};
}

ProcTree::ProcTree(std::filesystem::path root, pid_t job) : m_root(std::move(root)), m_job(job) {
    const long hz = ::sysconf(_SC_CLK_TCK);
    m_tick_s = hz > 0 ? 1.0 / static_cast<double>(hz) : 0.01;
}

double ProcTree::read() {
    std::size_t budget = SIZE_MAX;
    return read(budget).value_or(m_last);
}

std::optional<double> ProcTree::read(std::size_t& budget) {
    // Every live member's own time and its reaped children's: a process's time moves
    // into its parent's cutime/cstime when reaped, so each CPU second is counted once.
    std::vector<pid_t> todo{m_job};
    std::set<pid_t> visited;
    std::uint64_t ticks = 0;
    const auto take = [&budget] {
        if (budget == 0) {
            return false;
        }
        --budget;
        return true;
    };
    while (!todo.empty() && visited.size() < 100000) {
        const pid_t pid = todo.back();
        todo.pop_back();
        if (!visited.insert(pid).second) {
            continue;
        }
        const auto dir = sys::under_root(m_root, fmt::format("/proc/{}", pid));
        if (!take()) {
            return std::nullopt;
        }
        const auto stat = sys::read_text(dir / "stat");
        const auto times = stat ? parse_proc_stat(*stat) : std::nullopt;
        if (!times) {
            continue; // gone: reaped, its time is in its reaper's
        }
        ticks += times->own_ticks + times->children_ticks;
        if (!take()) {
            return std::nullopt;
        }
        for (const auto& task : sys::list_dir(dir / "task")) {
            if (!take()) {
                return std::nullopt;
            }
            if (auto kids = sys::read_text(dir / "task" / task / "children")) {
                for (const pid_t kid : pids_in(*kids)) {
                    todo.push_back(kid);
                }
            }
        }
    }
    // A process the job left to init takes its time out of the tree: never go back.
    m_last = std::max(m_last, static_cast<double>(ticks) * m_tick_s);
    return m_last;
}

void ProcTree::add_reaped(double children_s) {
    // The job's root was reaped by the monitor: everything it and its waited-for
    // descendants used is in children_s, the short-lived ones the tree missed too.
    m_last = std::max(m_last, children_s);
}

double rusage_children_s() {
    rusage ru{};
    ::getrusage(RUSAGE_CHILDREN, &ru);
    return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

} // namespace jp::attrib
