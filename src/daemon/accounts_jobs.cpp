// SPDX-License-Identifier: BSD-3-Clause
// Which jobs jouleprofd's accounts follow (daemon/accounts.hpp), read as root from processes
// any local user controls: a holder is taken only while its pid is still its user's; a
// holder started under another of the same user's joins that one's job; a group counts as a
// Slurm step, and its environment names GPUs and CPUs, only where root made the group; each
// user's setups are rationed; ended jobs are forgotten fairly between users.
#include "attrib/proc_tree.hpp"
#include "daemon/accounts.hpp"
#include "daemon/accounts_state.hpp"
#include "sys/file.hpp"

#include <algorithm>
#include <array>
#include <fcntl.h>
#include <fmt/format.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace jp::daemon {
namespace {

// A process's environment is read for what names its GPUs and CPUs, up to this much.
constexpr std::size_t k_max_environ = std::size_t{1} << 20;
// How far up a new holder's parents are looked through for another holder.
constexpr int k_max_depth = 64;

// Looked up once per job (the name service may read files): "" where there is none.
std::string user_name(uid_t uid) {
    passwd pw{};
    passwd* found = nullptr;
    std::array<char, 4096> buf{};
    if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr) {
        return found->pw_name;
    }
    return {};
}

// The first k_max_environ bytes of /proc/PID/environ; "" where it cannot be read or is longer.
std::string environ_text(const std::filesystem::path& root, pid_t pid) {
    const auto path = sys::under_root(root, fmt::format("/proc/{}/environ", pid));
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return {};
    }
    std::string text(k_max_environ + 1, '\0');
    std::size_t got = 0;
    for (ssize_t n = 0;
         got < text.size() && (n = ::read(fd, text.data() + got, text.size() - got)) > 0;) {
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    if (got > k_max_environ) {
        return {};
    }
    text.resize(got);
    return text;
}

// The variables of an environment that allocation_of asks for.
attrib::EnvLookup lookup_in(std::string env) {
    return [env = std::move(env)](const char* name) -> std::optional<std::string> {
        const std::string prefix = std::string{name} + "=";
        std::size_t at = 0;
        while (at < env.size()) {
            const auto end = std::min(env.find('\0', at), env.size());
            const std::string_view entry{env.data() + at, end - at};
            if (entry.starts_with(prefix)) {
                return std::string{entry.substr(prefix.size())};
            }
            at = end + 1;
        }
        return std::nullopt;
    };
}

// The owner of /proc/PID (its effective uid), or nullopt where it is gone.
std::optional<uid_t> owner_of(const std::filesystem::path& root, pid_t pid) {
    struct stat st {};
    const auto dir = sys::under_root(root, fmt::format("/proc/{}", pid));
    if (::stat(dir.c_str(), &st) != 0) {
        return std::nullopt;
    }
    return st.st_uid;
}

bool made_by_root(const std::filesystem::path& dir) {
    struct stat st {};
    return ::stat(dir.c_str(), &st) == 0 && st.st_uid == 0;
}

} // namespace

std::string Accounts::holder_id(const Holder& h) {
    return h.start_time ? fmt::format("{}:{}", h.pid, *h.start_time) : std::to_string(h.pid);
}

void Accounts::follow(std::span<const Holder> holders, std::int64_t now_ns) {
    if (!m_node) {
        return;
    }
    std::map<std::string, const Holder*, std::less<>> now;
    for (const auto& h : holders) {
        now.emplace(holder_id(h), &h);
    }
    std::vector<std::string> gone;
    for (const auto& [id, key] : m_holder_job) {
        if (!now.contains(id)) {
            gone.push_back(id);
        }
    }
    for (const auto& id : gone) {
        const auto at = m_holder_job.find(id);
        if (at == m_holder_job.end()) {
            continue; // its job ended with its tree's root, below
        }
        const auto key = at->second;
        m_holder_job.erase(at);
        m_holder_pid.erase(id);
        const auto job = m_jobs.find(key);
        if (job == m_jobs.end() || !job->second->cpu) {
            continue;
        }
        auto& t = *job->second;
        t.holders -= std::min<std::size_t>(t.holders, 1);
        // A process tree ends with its root (its pid may name another's process next); the
        // clients that joined it are taken up anew.
        const bool root = !t.root.empty() && t.root == id;
        if (t.holders > 0 && !root) {
            continue;
        }
        if (auto r = read(t)) { // what it used until now is its own; nothing after
            t.last = JobPoint{std::move(*r), now_ns};
        } else {
            t.settled = true; // nothing more of it to split
        }
        t.cpu.reset();
        t.job.ended_ns = now_ns;
        t.holders = 0;
        std::erase_if(m_holder_job, [&](const auto& kv) { return kv.second == key; });
        std::erase_if(m_holder_pid, [&](const auto& kv) { return kv.second.second == key; });
    }
    // New holders, the earliest started first (a holder started under another joins its
    // job), each user's at most as fast as its setups allow (each reads several files).
    std::vector<std::pair<std::string, const Holder*>> fresh;
    for (const auto& [id, h] : now) {
        if (!m_holder_job.contains(id)) {
            fresh.emplace_back(id, h);
        }
    }
    std::ranges::sort(fresh, {}, [](const auto& f) { return f.second->start_time.value_or(0); });
    for (const auto& [id, h] : fresh) {
        if (m_setups.take(h->uid, now_ns) != 0) {
            continue; // taken up at a later tick
        }
        if (auto key = begin_job(*h, now_ns)) {
            ++m_jobs.at(*key)->holders;
            m_holder_job.emplace(id, *key);
            m_holder_pid.emplace(id, std::pair{h->pid, *key});
        }
    }
    prune(now_ns);
}

std::optional<std::string> Accounts::joined(const Holder& h) const {
    // A holder in the process tree of another holder of its user: that one's job (its tree
    // counts this one's CPU time already).
    pid_t pid = h.pid;
    for (int depth = 0; depth < k_max_depth && pid > 1; ++depth) {
        const auto stat = sys::read_text(
            sys::under_root(m_settings.proc_root, fmt::format("/proc/{}/stat", pid)));
        const auto times = stat ? attrib::parse_proc_stat(*stat) : std::nullopt;
        if (!times) {
            return std::nullopt;
        }
        pid = times->ppid;
        for (const auto& [id, holder] : m_holder_pid) {
            const auto job = m_jobs.find(holder.second);
            if (holder.first == pid && job != m_jobs.end() && job->second->job.uid == h.uid &&
                job->second->cpu && job->second->cpu->group().empty()) {
                return holder.second;
            }
        }
    }
    return std::nullopt;
}

std::optional<std::string> Accounts::begin_job(const Holder& h, std::int64_t now_ns) {
    // Only while the pid is still the user's own (a client that ended, its pid another's).
    if (owner_of(m_settings.proc_root, h.pid) != h.uid) {
        ++m_refused;
        return std::nullopt;
    }
    auto cpu = attrib::JobCpu::of_process(m_settings.proc_root, h.pid);
    // A group is a Slurm step only where root made it (a user's own delegated groups may be
    // named anything); its environment names GPUs and CPUs only then.
    const bool slurm = !cpu.slurm_job().empty() && made_by_root(cpu.group());
    if (cpu.group().empty()) {
        if (auto key = joined(h)) {
            return key;
        }
    }
    auto key = cpu.group().empty()
                   ? fmt::format("process tree of pid {}{}", h.pid,
                                 h.start_time ? fmt::format(" (started {})", *h.start_time)
                                              : std::string{})
                   : cpu.group().string();
    auto& t = m_jobs[key];
    if (t && t->cpu) {
        return t->job.uid == h.uid ? std::optional{key} : std::nullopt; // a group others share
    }
    auto alloc = attrib::allocation_of(
        h.pid, m_settings.proc_root, m_settings.sysfs_root, m_node->cpus(),
        lookup_in(slurm ? environ_text(m_settings.proc_root, h.pid) : std::string{}), h.pid);
    if (!slurm) {
        alloc.gpus_given = std::vector<int>{}; // no scheduler gave it a GPU
        alloc.gpu_source = "none: not a Slurm step";
    }
    // A group that ended and is used again by its user goes on counting; anyone else's is new.
    const bool again = t && t->job.uid == h.uid;
    auto energy =
        again ? std::move(t->job.energy) : std::vector<attrib::JobEnergy>(m_channels.size());
    const auto first = again ? t->job.first_ns : now_ns;
    t = std::make_unique<Tracked>();
    t->job = {key,
              slurm || cpu.slurm_job().empty()
                  ? cpu.method()
                  : cpu.method() + " (a group root did not make: not taken as Slurm's)",
              slurm ? cpu.slurm_job() : std::string{},
              h.uid,
              user_name(h.uid),
              alloc.given_cpus,
              std::move(energy),
              first,
              0};
    t->alloc = std::move(alloc);
    t->root = cpu.group().empty() ? holder_id(h) : std::string{};
    t->cpu.emplace(std::move(cpu));
    if (auto r = read(*t)) {
        t->first = JobPoint{std::move(*r), now_ns};
    }
    return key;
}

void Accounts::prune(std::int64_t now_ns) {
    // Ended jobs go after keep; beyond max_jobs, the oldest of the user with the most ended
    // jobs kept goes first (no user can push another's off by ending many of its own).
    std::map<uid_t, std::vector<std::pair<std::int64_t, std::string>>> ended;
    std::size_t kept = 0;
    for (auto it = m_jobs.begin(); it != m_jobs.end();) {
        const auto& t = *it->second;
        if (!t.cpu && (t.last ? false : now_ns - t.job.ended_ns > m_settings.keep.count())) {
            it = m_jobs.erase(it);
            continue;
        }
        if (!t.cpu) {
            ended[t.job.uid].emplace_back(t.job.ended_ns, it->first);
        }
        ++kept;
        ++it;
    }
    for (auto& [uid, list] : ended) {
        std::ranges::sort(list, std::greater<>{}); // the newest first; the oldest at the back
    }
    while (kept > m_settings.max_jobs) {
        auto most = ended.end();
        for (auto it = ended.begin(); it != ended.end(); ++it) {
            if (!it->second.empty() &&
                (most == ended.end() || it->second.size() > most->second.size())) {
                most = it;
            }
        }
        if (most == ended.end()) {
            break; // only open jobs left: they stay
        }
        m_jobs.erase(most->second.back().second);
        most->second.pop_back();
        --kept;
    }
}

} // namespace jp::daemon
