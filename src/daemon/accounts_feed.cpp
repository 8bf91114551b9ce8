// SPDX-License-Identifier: BSD-3-Clause
// jouleprofd's accounts fed from its engine and its sessions (daemon/accounts.hpp).
#include "daemon/handlers.hpp"

namespace jp::daemon {

void feed_accounts(DaemonState& d, std::int64_t now_ns) {
    if (!d.accounts) {
        return;
    }
    auto& a = *d.accounts;
    const auto& e = d.engine;
    std::vector<Holder> holders;
    holders.reserve(d.sessions.size());
    d.sessions.for_each([&](Session& s) {
        holders.push_back({s.owner.pid, s.start_time, s.owner.uid});
    });
    a.follow(holders, now_ns);
    if (e.windows_chosen() != d.accounts_chosen) {
        d.accounts_chosen = e.windows_chosen();
        (void)a.snapshot(d.accounts_chosen, now_ns);
    }
    if (e.window_published() == d.accounts_published) {
        return;
    }
    d.accounts_published = e.window_published();
    // What /metrics shows of each channel (the floored publications), and its idle power:
    // the config's, else what jouleprofd learned where /metrics may show that.
    const auto& chans = e.channels();
    std::vector<std::optional<Reading>> latest(chans.size());
    std::vector<double> idle(chans.size(), 0.0);
    const auto& configured = d.config.sensors.attribution.idle_watts;
    for (std::size_t i = 0; i < chans.size(); ++i) {
        if (const auto& p = e.published(i); !p.empty()) {
            latest[i] = p.latest();
        }
        if (const auto it = configured.find(chans[i].name); it != configured.end()) {
            idle[i] = it->second;
        } else if (const auto w = idle_shown(d, Grant::floor, i) ? e.idle(i) : std::nullopt) {
            idle[i] = w->watts;
        }
    }
    a.account(d.accounts_published, latest, idle);
}

} // namespace jp::daemon
