// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/accounts.hpp"

#include "daemon/accounts_state.hpp"
#include "sys/file.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <unistd.h>

namespace jp::daemon {
Accounts::Accounts(AccountsSettings settings, std::vector<Channel> channels)
    : m_settings(std::move(settings)), m_channels(std::move(channels)),
      m_node(attrib::NodeCpu::open(m_settings.proc_root)),
      m_setups(m_settings.setups_burst, m_settings.setups_per_second), m_marks(m_channels.size()),
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
    out.reserve(m_shown.size());
    for (const auto& j : m_shown) {
        out.push_back(&j);
    }
    return out;
}

std::size_t Accounts::open_jobs() const noexcept {
    return static_cast<std::size_t>(
        std::ranges::count_if(m_shown, [](const AccountJob& j) { return j.ended_ns == 0; }));
}

std::optional<attrib::JobCpu::Reading> Accounts::read(Tracked& t) {
    auto& left = m_budget.try_emplace(t.job.uid, m_settings.reads_per_user).first->second;
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
    m_budget.clear(); // each user's reads until the next snapshot, its setups' included
    auto s = std::make_shared<Snapshot>();
    s->t_ns = now_ns;
    s->node = std::move(*node);
    for (auto& [key, t] : m_jobs) {
        if (t->cpu) {
            if (auto r = read(*t)) {
                s->jobs.emplace(key, JobPoint{std::move(*r), now_ns});
            } else {
                s->unread.insert(key);
            }
        } else if (t->last) { // ended since the last snapshot
            s->jobs.emplace(key, std::move(*t->last));
            t->last.reset();
            t->last_window = window;
        }
    }
    m_pending[window] = std::move(s);
    m_last_snapshot_ns = now_ns;
    return true;
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
    m_shown.clear();
    m_shown.reserve(m_jobs.size());
    for (const auto& [key, t] : m_jobs) {
        t->settled = t->settled || (t->last_window != 0 && t->last_window <= window);
        m_shown.push_back(t->job);
        if (!t->settled) { // shown as running until its last reading has been split
            m_shown.back().ended_ns = 0;
        }
    }
    std::ranges::sort(m_shown, {}, [](const AccountJob& j) { return j.first_ns; });
}

} // namespace jp::daemon
