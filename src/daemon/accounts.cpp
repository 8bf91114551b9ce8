// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/accounts.hpp"

#include "daemon/accounts_state.hpp"
#include "sys/file.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <pwd.h>
#include <set>
#include <unistd.h>

namespace jp::daemon {
namespace {

// A process's environment read for what says which GPUs and CPUs a job was given; larger
// ones (the kernel allows far more) are not read.
constexpr std::size_t k_max_environ = std::size_t{1} << 20;

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

std::string holder_id(const Holder& h) {
    return h.start_time ? fmt::format("{}:{}", h.pid, *h.start_time) : std::to_string(h.pid);
}

// The variables of /proc/PID/environ that allocation_of asks for.
attrib::EnvLookup environment_of(const std::filesystem::path& root, pid_t pid) {
    auto text = sys::read_text(sys::under_root(root, fmt::format("/proc/{}/environ", pid)));
    std::string env = text && text->size() <= k_max_environ ? std::move(*text) : std::string{};
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

} // namespace

Accounts::Accounts(AccountsSettings settings, std::vector<Channel> channels)
    : m_settings(std::move(settings)), m_channels(std::move(channels)),
      m_node(attrib::NodeCpu::open(m_settings.proc_root)), m_marks(m_channels.size()),
      m_totals(m_channels.size()) {
    if (!m_node || !m_node->read()) {
        m_node.reset();
        m_unavailable = fmt::format("the node's CPU time cannot be read under {}",
                                    m_settings.proc_root.string());
        return;
    }
    m_topology = attrib::allocation_of(::getpid(), m_settings.proc_root, m_settings.sysfs_root,
                                       m_node->cpus(),
                                       [](const char*) { return std::optional<std::string>{}; });
}

Accounts::Accounts(Accounts&&) noexcept = default;
Accounts& Accounts::operator=(Accounts&&) noexcept = default;
Accounts::~Accounts() = default;

std::vector<const AccountJob*> Accounts::jobs() const {
    std::vector<const AccountJob*> out;
    out.reserve(m_jobs.size());
    for (const auto& [key, t] : m_jobs) {
        out.push_back(&t->job);
    }
    std::ranges::sort(out, {}, [](const AccountJob* j) { return j->first_ns; });
    return out;
}

std::size_t Accounts::open_jobs() const noexcept {
    return static_cast<std::size_t>(
        std::ranges::count_if(m_jobs, [](const auto& kv) { return kv.second->cpu.has_value(); }));
}

void Accounts::follow(std::span<const Holder> holders, std::int64_t now_ns) {
    if (!m_node) {
        return;
    }
    Budget budget;
    std::map<std::string, const Holder*, std::less<>> now;
    for (const auto& h : holders) {
        now.emplace(holder_id(h), &h);
    }
    for (auto it = m_holder_job.begin(); it != m_holder_job.end();) {
        if (now.contains(it->first)) {
            ++it;
            continue;
        }
        const auto job = m_jobs.find(it->second);
        it = m_holder_job.erase(it);
        if (job == m_jobs.end() || !job->second->cpu) {
            continue;
        }
        auto& t = *job->second;
        t.holders -= std::min<std::size_t>(t.holders, 1);
        if (t.holders == 0) { // what it used until now is its own; nothing after
            if (auto r = read(t, budget)) {
                t.last = JobPoint{std::move(*r), now_ns};
            }
            t.cpu.reset();
            t.job.ended_ns = now_ns;
        }
    }
    for (const auto& [id, h] : now) {
        if (m_holder_job.contains(id)) {
            continue;
        }
        auto cpu = attrib::JobCpu::of_process(m_settings.proc_root, h->pid);
        const auto key = cpu.group().empty() ? fmt::format("process tree of pid {}", h->pid)
                                             : cpu.group().string();
        auto& t = m_jobs[key];
        if (!t || !t->cpu) { // new, or a group that ended and is used again
            auto alloc = attrib::allocation_of(
                h->pid, m_settings.proc_root, m_settings.sysfs_root, m_node->cpus(),
                environment_of(m_settings.proc_root, h->pid), h->pid);
            auto energy =
                t ? std::move(t->job.energy) : std::vector<attrib::JobEnergy>(m_channels.size());
            const auto first = t ? t->job.first_ns : now_ns;
            t = std::make_unique<Tracked>();
            t->job = {key,
                      cpu.method(),
                      cpu.slurm_job(),
                      h->uid,
                      user_name(h->uid),
                      alloc.given_cpus,
                      std::move(energy),
                      first,
                      0};
            t->alloc = std::move(alloc);
            t->cpu.emplace(std::move(cpu));
            if (auto r = read(*t, budget)) {
                t->first = JobPoint{std::move(*r), now_ns};
            }
        }
        ++t->holders;
        m_holder_job.emplace(id, key);
    }
    prune(now_ns);
}

std::optional<attrib::JobCpu::Reading> Accounts::read(Tracked& t, Budget& budget) {
    auto& left = budget.try_emplace(t.job.uid, m_settings.reads_per_user).first->second;
    auto r = t.cpu->read(left);
    if (!r) {
        ++m_unread;
    }
    return r;
}

bool Accounts::snapshot(std::uint64_t window, std::int64_t now_ns) {
    if (!m_node ||
        (m_last_snapshot_ns != 0 && now_ns - m_last_snapshot_ns < m_settings.min_period.count())) {
        return false;
    }
    auto node = m_node->read();
    if (!node) {
        return false;
    }
    Budget budget;
    auto s = std::make_shared<Snapshot>();
    s->t_ns = now_ns;
    s->node = std::move(*node);
    for (auto& [key, t] : m_jobs) {
        if (t->cpu) {
            if (auto r = read(*t, budget)) {
                s->jobs.emplace(key, JobPoint{std::move(*r), now_ns});
            }
        } else if (t->last) { // ended since the last snapshot
            s->jobs.emplace(key, std::move(*t->last));
            t->last.reset();
        }
    }
    m_pending[window] = std::move(s);
    m_last_snapshot_ns = now_ns;
    return true;
}

void Accounts::prune(std::int64_t now_ns) {
    std::vector<std::pair<std::int64_t, std::string>> ended;
    for (const auto& [key, t] : m_jobs) {
        if (!t->cpu) {
            ended.emplace_back(t->job.ended_ns, key);
        }
    }
    std::ranges::sort(ended);
    const std::size_t open = m_jobs.size() - ended.size();
    std::size_t kept = m_jobs.size();
    for (const auto& [at, key] : ended) {
        if (now_ns - at <= m_settings.keep.count() && kept <= std::max(m_settings.max_jobs, open)) {
            continue;
        }
        m_jobs.erase(key);
        --kept;
    }
}

void Accounts::account(std::uint64_t window,
                       std::span<const std::optional<Reading>> latest,
                       std::span<const double> idle_w) {
    const auto it = m_pending.find(window);
    if (it == m_pending.end()) {
        return; // no CPU time read for it: its energy goes with the next window that has
    }
    const auto b = it->second;
    m_pending.erase(m_pending.begin(), std::next(it));
    for (std::size_t i = 0; i < m_channels.size() && i < latest.size(); ++i) {
        const auto& c = m_channels[i];
        if (!latest[i] || c.quantity == Quantity::utilization) {
            continue;
        }
        const auto& r = *latest[i];
        auto& mark = m_marks[i];
        if (mark.at && r.t_ns <= mark.t_ns) {
            continue; // nothing new on this channel
        }
        if (mark.at && std::isfinite(r.value)) {
            const double seconds = static_cast<double>(r.t_ns - mark.t_ns) * 1e-9;
            const double energy =
                c.quantity == Quantity::energy ? r.value - mark.value : r.value * seconds;
            if (std::isfinite(energy) && energy >= 0) {
                split(i, energy, seconds, i < idle_w.size() ? idle_w[i] : 0.0, *mark.at, *b);
            }
        }
        mark = {r.t_ns, r.value, b};
    }
}

} // namespace jp::daemon
