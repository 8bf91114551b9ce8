// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/jouleprofd/jouleprofd.hpp"

#include "core/duration.hpp"
#include "daemon_client/client.hpp"
#include "sensors/jouleprofd/daemon_sensor.hpp"
#include "sensors/jouleprofd/offer.hpp"

#include <fmt/format.h>
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
    auto offer = offered(list->value("channels", nlohmann::json::array()), local);
    if (offer.channels.empty()) {
        out.notes.push_back(fmt::format("jouleprofd ({}): nothing that this user cannot read "
                                        "directly",
                                        socket.string()));
        return out;
    }
    auto session = (*client)->call({{"op", "open"}, {"label", "jouleprof"}}, k_connect_timeout);
    if (!session) {
        out.notes.push_back("jouleprofd: cannot open a session: " + session.error().message);
        return out;
    }
    out.notes.push_back(fmt::format("jouleprofd ({}, {}): {} channel{} at {}", socket.string(),
                                    (*client)->hello().daemon, offer.channels.size(),
                                    offer.channels.size() == 1 ? "" : "s",
                                    resolution_text((*client)->hello())));
    out.sensors.push_back(std::make_unique<DaemonSensor>(
        std::move(*client), session->at("session").get<std::string>(), std::move(offer.channels),
        std::move(offer.index)));
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
        return Discovery{
            {},
            {},
            {fmt::format("jouleprofd: not running here (no socket at {})", socket.string())}};
    }
    try {
        return connect_and_offer(socket, local);
    } catch (const std::exception& e) {
        return Discovery{{}, {}, {fmt::format("jouleprofd: malformed reply ({})", e.what())}};
    }
}

} // namespace jp::sensors::jouleprofd
