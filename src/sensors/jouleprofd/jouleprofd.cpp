// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/jouleprofd/jouleprofd.hpp"

#include "core/duration.hpp"
#include "daemon_client/client.hpp"
#include "sensors/jouleprofd/daemon_sensor.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <sys/stat.h>

namespace jp::sensors::jouleprofd {
namespace {

constexpr Nanos k_connect_timeout{std::chrono::seconds{2}};

// The same device, or, for channels that name none (DRAM, pm_counters
// aggregates, a node meter), the same domain.
bool covered(const Channel& c, const std::vector<Channel>& local) {
    const bool util = c.quantity == Quantity::utilization;
    return std::ranges::any_of(local, [&](const Channel& l) {
        if ((l.quantity == Quantity::utilization) != util) {
            return false;
        }
        if (!c.device.empty()) {
            return l.device == c.device;
        }
        return l.counted && l.device.empty() && l.domain == c.domain;
    });
}

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

struct Offer {
    std::vector<Channel> channels;
    std::vector<int> index;
};

Offer offered(const nlohmann::json& list, const std::vector<Channel>& local) {
    Offer out;
    for (const auto& j : list) {
        Channel c;
        c.name = j.at("name").get<std::string>();
        c.domain = domain_from_string(j.at("domain").get<std::string>()).value_or(Domain::other);
        c.quantity =
            quantity_from_string(j.at("quantity").get<std::string>()).value_or(Quantity::power);
        c.provenance = provenance_from_string(j.at("provenance").get<std::string>())
                           .value_or(Provenance::measured);
        c.device = j.value("device", "");
        c.counted = j.value("counted", true);
        c.parent = j.value("parent", "");
        if (const auto lim = j.find("limit_watts"); lim != j.end() && lim->is_number()) {
            c.limit_watts = lim->get<double>();
        }
        if (const auto most = j.find("max_watts"); most != j.end() && most->is_number()) {
            c.max_watts = most->get<double>();
        }
        if (const auto u = j.find("update_ns"); u != j.end() && u->is_number_integer()) {
            c.update_ns = u->get<std::int64_t>();
        }
        if (const auto a = j.find("averaging_ns"); a != j.end() && a->is_number_integer()) {
            c.averaging_ns = a->get<std::int64_t>();
        }
        if (covered(c, local)) {
            continue;
        }
        c.backend = "jouleprofd";
        c.mean_since_previous = is_mean_since_previous(c); // as the trace reader has it
        c.source = fmt::format("{} {} via jouleprofd, {} ms resolution", j.value("backend", ""),
                               j.value("source", ""), j.value("resolution_ms", 0));
        out.channels.push_back(std::move(c));
        out.index.push_back(j.at("index").get<int>());
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
