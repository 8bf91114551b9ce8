// SPDX-License-Identifier: BSD-3-Clause
// Discovery: the configured service, its chassis, and the channels its readings
// give. Every failure is one Finding with the fix; nothing here throws.
#include "sensors/redfish/redfish.hpp"

#include "config/config.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "sensors/redfish/chassis.hpp"
#include "sensors/redfish/redfish_sensor.hpp"
#include "sys/secret_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace jp::sensors::redfish {
namespace {

constexpr std::string_view k_backend = "redfish";
constexpr std::string_view k_node = "redfish.node";

// scheme://user:password@host/... has a user part; its text must never be shown.
bool has_userinfo(std::string_view url) {
    const auto scheme = url.find("://");
    const auto rest = scheme == std::string_view::npos ? url : url.substr(scheme + 3);
    return rest.substr(0, rest.find('/')).find('@') != std::string_view::npos;
}

// The URL as shown in messages: without a user part.
std::string shown_url(std::string_view url) {
    if (!has_userinfo(url)) {
        return one_line(url, 200);
    }
    const auto scheme = url.find("://");
    const auto at = url.find('@', scheme == std::string_view::npos ? 0 : scheme + 3);
    return one_line(url.substr(0, scheme + 3), 20) + one_line(url.substr(at + 1), 200);
}

Result<ConnectionOptions> connection_options(const RedfishConfig& c) {
    if (has_userinfo(c.url)) {
        return fail(ErrorKind::config, "[sensors.redfish] url", "carries a user or password",
                    "put the user in user and the password in a root-only password_file");
    }
    ConnectionOptions o;
    o.url = c.url;
    o.tls = TlsOptions{c.ca_file, c.insecure};
    o.auth = c.auth == "session" ? Auth::session : Auth::basic;
    o.timeout = c.timeout;
    if (c.password_file) {
        auto password = sys::read_secret_file(*c.password_file);
        if (!password) {
            return std::unexpected(password.error());
        }
        o.credentials = Credentials{c.user.value_or(""), std::move(*password)};
    }
    return o;
}

Channel channel(const Connection& conn, const Source& s, std::string name, bool counted) {
    Channel ch;
    ch.name = std::move(name);
    ch.domain = Domain::node;
    ch.quantity = s.quantity;
    ch.provenance = Provenance::measured;
    ch.backend = k_backend;
    ch.source = fmt::format("redfish:{} {}{}", conn.url(s.path), label(s),
                            conn.insecure() ? " (TLS not verified: insecure = true)" : "");
    ch.update_ns = s.update_ns;
    ch.counted = counted;
    return ch;
}

struct Plan {
    std::vector<Channel> channels;
    std::vector<Source> sources;
};

// The node's channel is an energy counter kept in joules, else the power reading:
// a counter in kW.h or W.h steps in units Redfish does not state (whole kW.h are
// 3.6 MJ, hours of a node's draw), so it is shown beside the power, not summed.
Plan plan(const Connection& conn, const ChassisReadings& r, std::vector<std::string>& notes) {
    const bool joules = r.energy && (r.energy->units == "J" || r.energy->units == "kJ");
    const bool energy_first = r.energy && (joules || !r.power);
    Plan p;
    const auto add = [&](const Source& s, std::string name, bool counted) {
        p.channels.push_back(channel(conn, s, std::move(name), counted));
        p.sources.push_back(s);
    };
    if (energy_first) {
        add(*r.energy, std::string{k_node}, true);
        if (r.power) {
            add(*r.power, fmt::format("{}.power", k_node), false);
        }
    } else {
        add(*r.power, std::string{k_node}, true);
        if (r.energy) {
            add(*r.energy, fmt::format("{}.energy", k_node), false);
            notes.push_back(fmt::format(
                "redfish: the energy counter {} {} counts in {}, in steps Redfish does not state: "
                "the node is measured by its power reading, and {}.energy is shown beside it, "
                "not summed",
                conn.url(r.energy->path), label(*r.energy), r.energy->units, k_node));
        }
    }
    return p;
}

std::string chassis_hint(const Error& e) {
    if (e.kind == ErrorKind::not_found) {
        return "the service lists a chassis it does not serve: set [sensors.redfish] chassis to "
               "another member of its Chassis collection";
    }
    return e.hint;
}

// The first chassis with a reading; the others' failures as findings or notes.
std::optional<std::pair<std::string, ChassisReadings>>
first_readable(Connection& conn, const std::vector<std::string>& list, Discovery& out) {
    std::vector<Finding> failed;
    for (const auto& path : list) {
        auto r = chassis_readings(conn, path);
        if (r) {
            for (const auto& f : failed) {
                out.notes.push_back(fmt::format("redfish: {}: {}", f.what, f.reason));
            }
            return std::pair{path, std::move(*r)};
        }
        failed.emplace_back(std::string{k_backend},
                            fmt::format("Redfish chassis {}", one_line(last_segment(path), 64)),
                            r.error().message(), chassis_hint(r.error()), std::string{k_node});
    }
    out.unreadable.insert(out.unreadable.end(), failed.begin(), failed.end());
    return std::nullopt;
}

void say_transport(const RedfishConfig& c, std::vector<std::string>& notes) {
    const auto url = shown_url(c.url);
    if (c.insecure) {
        notes.push_back(fmt::format(
            "redfish: the TLS certificate of {} is not verified (insecure = true)", url));
        JP_LOG_WARN("redfish: the TLS certificate of {} is not verified (insecure = true)", url);
    }
    if (c.url.starts_with("http://") && c.password_file) {
        notes.push_back(fmt::format("redfish: {} is plain HTTP: the login goes unencrypted", url));
    }
}

} // namespace

Discovery discover(const RedfishConfig& config, const DiscoverOptions& options) {
    Discovery out;
    const auto what = fmt::format("Redfish service {}", shown_url(config.url));
    const auto unreadable = [&](const Error& e) {
        out.unreadable.emplace_back(std::string{k_backend}, what, e.message(), e.hint,
                                    std::string{k_node});
    };
    auto opts = connection_options(config);
    if (!opts) {
        unreadable(opts.error());
        return out;
    }
    say_transport(config, out.notes);
    auto conn = Connection::open(std::move(*opts));
    if (!conn) {
        unreadable(conn.error());
        return out;
    }
    auto list = chassis_members(**conn, config.chassis);
    if (!list) {
        unreadable(list.error());
        return out;
    }
    auto chosen = first_readable(**conn, *list, out);
    if (!chosen) {
        return out;
    }
    auto& [path, readings] = *chosen;
    for (const auto& n : readings.notes) {
        out.notes.push_back(fmt::format("redfish: {}", n));
    }
    if (list->size() > 1) {
        std::vector<std::string> others;
        for (const auto& m : *list) {
            if (m != path) {
                others.emplace_back(one_line(last_segment(m), 64));
            }
        }
        out.notes.push_back(fmt::format("redfish: reading chassis {}; the service also has {} "
                                        "([sensors.redfish] chassis picks one)",
                                        one_line(last_segment(path), 64), fmt::join(others, ", ")));
    }
    auto p = plan(**conn, readings, out.notes);
    out.sensors.push_back(std::make_unique<RedfishSensor>(std::move(*conn), std::move(p.channels),
                                                          std::move(p.sources), options.poll,
                                                          options.stale_after));
    return out;
}

Discovery discover(const Host& host) {
    if (host.config == nullptr || !host.config->redfish) {
        return {}; // Redfish is only used when configured
    }
    DiscoverOptions options;
    if (const auto it = host.config->intervals.find(k_backend);
        it != host.config->intervals.end()) {
        options.poll = it->second;
    }
    return discover(*host.config->redfish, options);
}

} // namespace jp::sensors::redfish
