// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/sessions.hpp"

#include "core/clock.hpp"
#include "sys/proc.hpp"

#include <fmt/format.h>
#include <random>

namespace jp::daemon {
namespace {

std::string random_id() {
    static std::random_device device; // getrandom(2)
    std::string id;
    for (int i = 0; i < 4; ++i) {
        id += fmt::format("{:08x}", device());
    }
    return id;
}

} // namespace

std::expected<Session*, std::string> SessionTable::open(std::uint64_t connection,
                                                        const sys::PeerCredentials& owner,
                                                        std::optional<std::uint64_t> start_time,
                                                        Grant grant,
                                                        std::string label,
                                                        std::int64_t now_ns,
                                                        int max_per_user) {
    if (owner.uid != 0 && count_for(owner.uid) >= static_cast<std::size_t>(max_per_user)) {
        return std::unexpected(
            fmt::format("uid {} has {} sessions open, the most allowed", owner.uid, max_per_user));
    }
    Session s;
    s.id = random_id();
    s.connection = connection;
    s.owner = owner;
    s.start_time = start_time;
    s.grant = grant;
    s.label = std::move(label);
    s.opened_ns = now_ns;
    // The job holds the CPUs its client may run on (the kernel's word, for the pid the
    // kernel vouched for): one job per client process, however many sessions it opens.
    m_ledger.open(s.id,
                  owner.pid > 0 ? fmt::format("{}:{}", owner.pid, s.start_time.value_or(0)) : s.id,
                  owner.uid, affinity_of(owner.pid), now_ns);
    auto [it, inserted] = m_sessions.emplace(s.id, std::move(s));
    return &it->second;
}

Session* SessionTable::find(std::string_view id) {
    const auto it = m_sessions.find(id);
    return it == m_sessions.end() ? nullptr : &it->second;
}

bool SessionTable::close(std::string_view id) {
    const auto it = m_sessions.find(id);
    if (it == m_sessions.end()) {
        return false;
    }
    m_ledger.close(id, mono_ns());
    m_sessions.erase(it);
    return true;
}

std::size_t SessionTable::close_connection(std::uint64_t connection) {
    const auto now = mono_ns();
    return std::erase_if(m_sessions, [&](const auto& kv) {
        if (kv.second.connection != connection) {
            return false;
        }
        m_ledger.close(kv.first, now);
        return true;
    });
}

std::vector<std::string> SessionTable::reap_dead() {
    std::vector<std::string> dead;
    for (const auto& [id, s] : m_sessions) {
        if (s.start_time && sys::process_start_time(s.owner.pid) != s.start_time) {
            dead.push_back(id);
        }
    }
    const auto now = mono_ns();
    for (const auto& id : dead) {
        m_ledger.close(id, now);
        m_sessions.erase(id);
    }
    return dead;
}

std::size_t SessionTable::marker_bytes_of(uid_t uid) const {
    std::size_t n = 0;
    for (const auto& [id, s] : m_sessions) {
        n += s.owner.uid == uid ? s.marker_bytes : 0U;
    }
    return n;
}

std::size_t SessionTable::count_for(uid_t uid) const {
    std::size_t n = 0;
    for (const auto& [id, s] : m_sessions) {
        n += s.owner.uid == uid ? 1U : 0U;
    }
    return n;
}

void SessionTable::for_each(const std::function<void(Session&)>& fn) {
    for (auto& [id, s] : m_sessions) {
        fn(s);
    }
}

bool may_use(const Session& s, uid_t caller) noexcept {
    return caller == 0 || caller == s.owner.uid;
}

} // namespace jp::daemon
