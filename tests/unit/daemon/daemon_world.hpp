// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A daemon's state on a fake powercap tree, for handler and metric tests.
#include "daemon/handlers.hpp"
#include "fake_sysfs.hpp"
#include "sys/proc.hpp"

#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <sys/socket.h>

namespace jp::daemon::test {

inline nlohmann::json hello() {
    return {{"op", "hello"}, {"versions", {1}}};
}

struct World {
    explicit World(DaemonConfig config = {}, std::uint64_t range_uj = 262143328850ULL) {
        jp::test::add_rapl_zone(fs, "intel-rapl:0", "package-0", 1'000'000, range_uj, 0444);
        jp::test::add_rapl_zone(fs, "intel-rapl:0:0", "core", 500'000, range_uj, 0444);
        config.sensors.disabled.emplace("perf_rapl");
        auto e = Engine::start(sensors::Host::with_root(fs.root()), config);
        if (!e) {
            throw std::runtime_error(e.error().message());
        }
        engine = std::move(*e);
        state = std::make_unique<DaemonState>(
            DaemonState{std::move(config), *engine, {}, {}, {}, 0, 0});
    }

    // A connection from uid (a socketpair stands in for the client's socket).
    std::unique_ptr<Connection> connect(uid_t uid, std::vector<gid_t> groups = {}) {
        int sv[2];
        ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
        peers.emplace_back(sv[1]);
        auto c = std::make_unique<Connection>(next_id++, sys::UniqueFd{sv[0]},
                                              Connection::Kind::client, k_max_request_bytes);
        c->peer = sys::PeerCredentials{::getpid(), uid, uid, std::move(groups)};
        c->peer_start_time = sys::process_start_time(::getpid()); // as the server's accept does
        return c;
    }

    // A connection from uid that has said hello (throws where the daemon refused it).
    std::unique_ptr<Connection> greeted(uid_t uid) {
        auto c = connect(uid);
        if (const auto r = call(*c, hello()); r["ok"] != true) {
            throw std::runtime_error("hello refused: " + r.dump());
        }
        return c;
    }

    nlohmann::json call(Connection& c, const nlohmann::json& req, std::int64_t now = 0) {
        return nlohmann::json::parse(handle_line(*state, c, req.dump(), now));
    }

    void set_energy_uj(std::uint64_t uj) {
        fs.write("/sys/class/powercap/intel-rapl:0/energy_uj", fmt::format("{}\n", uj));
    }

    jp::test::FakeSysfs fs;
    std::unique_ptr<Engine> engine;
    std::unique_ptr<DaemonState> state;
    std::vector<sys::UniqueFd> peers;
    std::uint64_t next_id = 100;
};

} // namespace jp::daemon::test
