// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/jouleprofd/jouleprofd.hpp"

#include "core/duration.hpp"
#include "core/text.hpp"
#include "daemon_client/client.hpp"
#include "sensors/jouleprofd/daemon_sensor.hpp"
#include "sensors/jouleprofd/offer.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <sys/stat.h>

namespace jp::sensors::jouleprofd {
namespace {

constexpr Nanos k_connect_timeout{std::chrono::seconds{2}};

std::string resolution_text(const daemon::HelloInfo& h) {
    if (h.access == "full") {
        return fmt::format("full resolution ({} sampling)", format_duration(h.interval));
    }
    std::string edges = h.edge_burst > 0
                            ? fmt::format("exact edge reads: {} at once, then {:g} per minute",
                                          h.edge_burst, h.edge_per_minute)
                            : std::string{"exact edge reads unlimited"};
    return fmt::format("windows of at least {} (+ up to {} jitter); {}", format_duration(h.floor),
                       format_duration(h.jitter), edges);
}

// Idle power the daemon learned per channel (its channels reply's "idle"), for every
// channel it lists: the node's, whoever reads it.
std::map<std::string, LearnedIdle> learned_idle(const nlohmann::json& channels) {
    std::map<std::string, LearnedIdle> out;
    if (!channels.is_array()) {
        return out;
    }
    const auto number = [](const nlohmann::json& o, const char* key) {
        const auto it = o.find(key);
        return it != o.end() && it->is_number() && std::isfinite(it->get<double>()) &&
                       it->get<double>() >= 0
                   ? std::optional{it->get<double>()}
                   : std::nullopt;
    };
    for (const auto& c : channels) {
        const auto idle = c.is_object() ? c.find("idle") : c.end();
        const auto name = c.is_object() ? c.find("name") : c.end();
        if (idle == c.end() || !idle->is_object() || name == c.end() || !name->is_string()) {
            continue;
        }
        const auto watts = number(*idle, "watts");
        const auto pct = number(*idle, "percentile");
        const auto period = number(*idle, "period_s");
        const auto history = number(*idle, "history_s");
        if (!watts || *watts > 1e7 || !pct || !period || !history ||
            name->get_ref<const std::string&>().size() > 256) {
            continue;
        }
        const auto how = idle->find("how");
        const auto basis = idle->find("basis");
        constexpr std::array<std::string_view, 4> k_bases{"quiet", "extrapolated", "busy", "all"};
        const bool known_basis =
            basis != idle->end() && basis->is_string() &&
            std::ranges::find(k_bases, basis->get_ref<const std::string&>()) != k_bases.end();
        out[name->get<std::string>()] = {
            *watts,
            "jouleprofd: " +
                (how != idle->end() && how->is_string()
                     ? one_line(how->get_ref<const std::string&>(), 160)
                     : fmt::format("the {:g} percentile of {:g} s means", *pct, *period)),
            *history, known_basis ? basis->get<std::string>() : std::string{}};
    }
    return out;
}

Discovery connect_and_offer(const std::filesystem::path& socket,
                            const std::vector<Channel>& local) {
    Discovery out;
    auto client = daemon::Client::connect(socket, k_connect_timeout);
    if (!client) {
        const bool denied = client.error().code == daemon::ErrorCode::denied;
        out.notes.push_back(fmt::format("jouleprofd: {}{}", client.error().message,
                                        denied ? " (the site's access rules)" : ""));
        return out;
    }
    auto list = (*client)->call({{"op", "channels"}}, k_connect_timeout);
    if (!list) {
        out.notes.push_back("jouleprofd: cannot list channels: " + list.error().message);
        return out;
    }
    const auto channels = list->value("channels", nlohmann::json::array());
    out.idle = learned_idle(channels);
    auto offer = offered(channels, local);
    // A session even where nothing is offered: the daemon's ledger counts every job on the
    // node by its session (docs/attribution.md, "Several jobs on one node").
    // A user's sessions are opened at a few a second after a burst (a sweep of many short
    // jobs can reach it): wait for the next rather than measure without the daemon.
    auto session = (*client)->call_patiently({{"op", "open"}, {"label", "jouleprof"}},
                                             k_connect_timeout, std::chrono::seconds{4});
    if (!session) {
        out.notes.push_back("jouleprofd: cannot open a session: " + session.error().message);
        return out;
    }
    const auto id = session->at("session").get<std::string>();
    if (offer.channels.empty()) {
        out.notes.push_back(fmt::format("jouleprofd ({}): nothing that this user cannot read "
                                        "directly; a session for the node's ledger",
                                        socket.string()));
        std::shared_ptr<daemon::Client> kept{std::move(*client)}; // the session lives with it
        out.ledger = [kept, id](std::int64_t from, std::int64_t to,
                                const daemon::LedgerGroups& groups) {
            return query_ledger(*kept, id, from, to, groups);
        };
        return out;
    }
    out.notes.push_back(fmt::format("jouleprofd ({}, {}): {} channel{} at {}", socket.string(),
                                    (*client)->hello().daemon, offer.channels.size(),
                                    offer.channels.size() == 1 ? "" : "s",
                                    resolution_text((*client)->hello())));
    auto sensor = std::make_unique<DaemonSensor>(std::move(*client), id, std::move(offer.channels),
                                                 std::move(offer.index));
    // The sensor lives in the sampler as long as anything may ask (the measurement's state).
    out.ledger = [raw = sensor.get()](std::int64_t from, std::int64_t to,
                                      const daemon::LedgerGroups& groups) {
        return raw->ledger(from, to, groups);
    };
    out.sensors.push_back(std::move(sensor));
    return out;
}

} // namespace

Discovery discover(const Host& host, const std::vector<Channel>& local) {
    if (!host.use_daemon) {
        return {};
    }
    const auto socket =
        host.daemon_socket.empty() ? daemon::default_socket_path() : host.daemon_socket;
    struct stat st {};
    if (::stat(socket.c_str(), &st) != 0) {
        Discovery none;
        none.notes.push_back(
            fmt::format("jouleprofd: not running here (no socket at {})", socket.string()));
        return none;
    }
    try {
        return connect_and_offer(socket, local);
    } catch (const std::exception& e) {
        Discovery none;
        none.notes.push_back(fmt::format("jouleprofd: malformed reply ({})", e.what()));
        return none;
    }
}

} // namespace jp::sensors::jouleprofd
