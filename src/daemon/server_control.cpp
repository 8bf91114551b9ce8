// SPDX-License-Identifier: BSD-3-Clause
// The server's control path: signals (SIGHUP reloads the access rules, the
// others stop it), the reload itself, and the goodbye to every client.
#include "core/clock.hpp"
#include "core/log.hpp"
#include "daemon/handlers.hpp"
#include "daemon/server.hpp"

#include <csignal>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace jp::daemon {

void Server::on_signals() {
    signalfd_siginfo info{};
    while (::read(m_signals.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
        if (info.ssi_signo == SIGHUP) {
            reload();
        } else {
            JP_LOG_INFO("signal {}: stopping", info.ssi_signo);
            m_stop = true;
        }
    }
}

void Server::reload() {
    if (m_reload_path.empty()) {
        JP_LOG_WARN("SIGHUP: jouleprofd runs on built-in defaults, there is no file to reload");
        return;
    }
    auto fresh = load_daemon_config(m_reload_path);
    if (!fresh) {
        JP_LOG_ERROR("SIGHUP: keeping the current access rules: {}", fresh.error().message());
        return;
    }
    m_state.config.access = fresh->access;
    m_state.sessions.set_ledger_grid(fresh->access.floor.count(), mono_ns());
    std::vector<bool> restricted_before;
    restricted_before.reserve(m_engine->channels().size());
    for (std::size_t i = 0; i < m_engine->channels().size(); ++i) {
        restricted_before.push_back(m_engine->restricted(i));
    }
    m_engine->set_rules(fresh->access);
    bool restricted_changed = false;
    for (std::size_t i = 0; i < restricted_before.size(); ++i) {
        restricted_changed = restricted_changed || restricted_before[i] != m_engine->restricted(i);
    }
    std::vector<std::uint64_t> denied;
    for (auto& [id, c] : m_conns) {
        if (c->kind == Connection::Kind::client && c->said_hello) {
            c->grant = grant_for(fresh->access, c->peer);
            if (c->grant == Grant::denied) {
                c->queue(refusal_line(ErrorCode::denied, "the site's new access rules serve this "
                                                         "user nothing"));
                (void)c->flush();
                denied.push_back(id);
            }
        }
    }
    for (auto id : denied) {
        drop(id, "denied by the reloaded access rules");
    }
    m_state.sessions.for_each([&](Session& s) {
        const auto g = grant_for(fresh->access, s.owner);
        // A new grant, or channels newly restricted or not (unrestricted_backends): streams
        // go on in the numbering of the view each channel is now served from.
        if (g != s.grant || restricted_changed) {
            s.grant = g;
            for (std::size_t i = 0; i < s.next_seq.size(); ++i) {
                s.next_seq[i] = view_of(*m_engine, g, i).newest() + 1;
            }
        }
    });
    const auto waiting = changed_until_restart(m_state.config.text, fresh->text);
    if (waiting.empty()) {
        JP_LOG_INFO("SIGHUP: access rules reloaded from {}", m_reload_path.string());
    } else {
        JP_LOG_WARN("SIGHUP: access rules reloaded from {}; written otherwise than in the file "
                    "the daemon started with, and applied only at its next start: {}",
                    m_reload_path.string(), fmt::join(waiting, ", "));
    }
}

void Server::stop() {
    const auto bye =
        fmt::format("{{\"event\":\"closing\",\"reason\":\"jouleprofd is stopping\"}}\n");
    for (auto& [id, c] : m_conns) {
        if (c->kind == Connection::Kind::client) {
            c->queue(bye);
            (void)c->flush();
        }
    }
    m_conns.clear();
    m_state.clients = 0;
}

} // namespace jp::daemon
