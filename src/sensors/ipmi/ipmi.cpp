// SPDX-License-Identifier: BSD-3-Clause
// Discovery of the BMC's node meter over IPMI: in-band through the kernel's
// device (probed by default), or out-of-band over RMCP+ when [sensors.ipmi]
// names a host. The readings are tried in the study's order of preference:
// the XCC energy counter, DCMI Get Power Reading, an SDR sensor in Watts.
#include "sensors/ipmi/ipmi.hpp"

#include "config/config.hpp"
#include "sensors/ipmi/device.hpp"
#include "sensors/ipmi/ipmi_sensor.hpp"
#include "sensors/ipmi/lan.hpp"
#include "sensors/ipmi/readings.hpp"
#include "sys/secret_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

namespace jp::sensors::ipmi {
namespace {

constexpr std::string_view k_backend = "ipmi";
constexpr std::string_view k_channel = "ipmi.node";
constexpr Nanos k_default_poll = std::chrono::seconds{1};

std::uint8_t privilege_level(std::string_view p) {
    return p == "admin" ? 4 : p == "operator" ? 3 : 2;
}

bool device_exists(const std::filesystem::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0;
}

struct Opened {
    std::unique_ptr<Transport> transport;
    std::string what; // "BMC at 10.0.0.5:623 (out-of-band)"
};

Result<Opened> open_lan_transport(const IpmiConfig& c) {
    const auto what = fmt::format("BMC at {}:{} (out-of-band IPMI)", *c.host, c.port);
    auto password = sys::read_secret_file(*c.password_file);
    if (!password) {
        auto e = password.error();
        e.hint = "the password file must be a regular file only its owner (root) can read: "
                 "chmod 600 and chown root";
        return std::unexpected(std::move(e));
    }
    LanOptions o;
    o.host = *c.host;
    o.port = c.port;
    o.user = *c.user;
    o.password = std::move(*password);
    o.cipher_suite = c.cipher_suite;
    o.privilege = privilege_level(c.privilege);
    o.timeout = c.timeout;
    o.retries = c.retries;
    auto t = open_lan(o);
    if (!t) {
        return std::unexpected(t.error());
    }
    return Opened{std::move(*t), what};
}

// In-band: the configured device, else the first of the usual paths that
// exists. Nothing (no error) when none exists and none was configured.
Result<std::optional<Opened>> open_device_transport(const Host& host, const IpmiConfig& c) {
    std::vector<std::filesystem::path> paths;
    if (c.device) {
        paths.push_back(*c.device);
    } else {
        for (auto& p : default_device_paths()) {
            if (host.ipmi_device != nullptr || device_exists(p)) {
                paths.push_back(std::move(p));
            }
        }
        if (paths.empty()) {
            return std::optional<Opened>{};
        }
    }
    auto t = open_device(paths.front(), c.timeout, host.ipmi_device);
    if (!t) {
        return std::unexpected(t.error());
    }
    return Opened{std::move(*t),
                  fmt::format("BMC through {} (in-band IPMI)", paths.front().string())};
}

Channel node_channel(Source s, const std::string& transport) {
    Channel ch;
    ch.name = std::string{k_channel};
    ch.domain = Domain::node;
    ch.backend = std::string{k_backend};
    ch.quantity = s == Source::xcc ? Quantity::energy : Quantity::power;
    ch.source = fmt::format("ipmi:{} {}", to_string(s), transport);
    return ch;
}

// One attempt per reading, in order; the first that answers makes the sensor.
struct Probe {
    std::optional<Channel> channel;
    std::optional<SdrPowerSensor> sdr;
    std::vector<std::string> why; // each reading that did not work, and why
    bool privilege = false;       // some reading was refused for privilege (0xD4)
};

void note_failure(Probe& p, std::string_view what, const Error& e) {
    p.why.push_back(fmt::format("{}: {}", what, e.detail.empty() ? e.message() : e.detail));
    p.privilege = p.privilege || e.detail.find("0xD4") != std::string::npos;
}

bool try_xcc(Transport& t, Probe& p) {
    auto reply = t.call(xcc_energy_request());
    auto e = reply ? parse_xcc_energy(*reply) : std::unexpected(reply.error());
    if (!e) {
        note_failure(p, "XCC energy", e.error());
        return false;
    }
    auto ch = node_channel(Source::xcc, t.describe());
    ch.wrap_joules = k_xcc_wrap_joules;
    p.channel = std::move(ch);
    return true;
}

bool try_dcmi(Transport& t, Probe& p) {
    auto caps_reply = t.call(dcmi_capabilities_request());
    auto caps =
        caps_reply ? parse_dcmi_capabilities(*caps_reply) : std::unexpected(caps_reply.error());
    auto reply = t.call(dcmi_power_request());
    auto r = reply ? parse_dcmi_power(*reply) : std::unexpected(reply.error());
    if (!r) {
        note_failure(p, "DCMI power reading", r.error());
        return false;
    }
    if (!r->measurement_active) {
        p.why.emplace_back("DCMI power reading: the BMC says power measurement is not active");
        return false;
    }
    auto ch = node_channel(Source::dcmi, t.describe());
    if (caps) {
        ch.source += fmt::format(", DCMI {}.{}", caps->major, caps->minor);
    }
    if (r->period_ms > 0) {
        // Each reading is the BMC's mean over this window; it changes no faster.
        ch.averaging_ns = std::int64_t{r->period_ms} * 1'000'000;
        ch.update_ns = ch.averaging_ns;
        // The mean of the window before the reading, and the poll is never
        // shorter than the window: each reading stands for the time before it.
        ch.mean_since_previous = true;
    }
    p.channel = std::move(ch);
    return true;
}

bool try_sdr(Transport& t, Probe& p) {
    auto sensors = find_power_sensors(t);
    if (!sensors) {
        note_failure(p, "SDR", sensors.error());
        return false;
    }
    auto pick = pick_node_sensor(*sensors);
    if (!pick) {
        p.why.emplace_back("SDR: no sensor in Watts");
        return false;
    }
    if (auto w = read_watts(t, *pick); !w) {
        note_failure(p, fmt::format("SDR sensor '{}'", pick->name), w.error());
        return false;
    }
    auto ch = node_channel(Source::sdr, t.describe());
    ch.source += fmt::format(", sensor '{}' #{}", pick->name, pick->number);
    p.channel = std::move(ch);
    p.sdr = std::move(pick);
    return true;
}

Probe probe(Transport& t, std::string_view wanted) {
    Probe p;
    const bool any = wanted == "auto";
    if ((any || wanted == "xcc") && try_xcc(t, p)) {
        return p;
    }
    if ((any || wanted == "dcmi") && try_dcmi(t, p)) {
        return p;
    }
    if (any || wanted == "sdr") {
        try_sdr(t, p);
    }
    return p;
}

std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& s : parts) {
        out += out.empty() ? s : "; " + s;
    }
    return out;
}

} // namespace

Discovery discover(const Host& host) {
    Discovery out;
    const IpmiConfig defaults;
    const auto* configured =
        host.config != nullptr && host.config->ipmi ? &*host.config->ipmi : nullptr;
    const auto& c = configured != nullptr ? *configured : defaults;
    Opened opened;
    if (c.host) {
        auto lan = open_lan_transport(c);
        if (!lan) {
            out.unreadable.emplace_back(
                std::string{k_backend},
                fmt::format("BMC at {}:{} (out-of-band IPMI)", *c.host, c.port),
                lan.error().message(), lan.error().hint, std::string{k_channel});
            return out;
        }
        opened = std::move(*lan);
    } else {
        auto dev = open_device_transport(host, c);
        if (!dev) {
            out.unreadable.emplace_back(std::string{k_backend}, "BMC (in-band IPMI)",
                                        dev.error().message(), dev.error().hint,
                                        std::string{k_channel});
            return out;
        }
        if (!*dev) {
            out.notes.emplace_back("ipmi: no IPMI device (/dev/ipmi0, /dev/ipmi/0, "
                                   "/dev/ipmidev/0) and no [sensors.ipmi] host");
            return out;
        }
        opened = std::move(**dev);
    }
    auto p = probe(*opened.transport, c.source);
    if (!p.channel) {
        std::string hint =
            p.privilege ? "the BMC refused the account's privilege: set [sensors.ipmi] privilege = "
                          "\"operator\" or \"admin\" with an account that has it"
                        : "this BMC offers no node power reading over IPMI; try Redfish "
                          "([sensors.redfish])";
        if (c.source != "auto") {
            hint += fmt::format(R"(, or [sensors.ipmi] source = "auto" (now "{}"))", c.source);
        }
        out.unreadable.emplace_back(std::string{k_backend}, opened.what,
                                    fmt::format("no node power reading: {}", joined(p.why)), hint,
                                    std::string{k_channel});
        return out;
    }
    Nanos poll = k_default_poll;
    if (host.config != nullptr) {
        if (auto it = host.config->intervals.find(k_backend); it != host.config->intervals.end()) {
            poll = it->second;
        }
    }
    if (p.channel->averaging_ns) {
        poll = std::max(poll, Nanos{*p.channel->averaging_ns});
    }
    out.sensors.push_back(
        std::make_unique<IpmiSensor>(std::move(opened.transport),
                                     p.channel->quantity == Quantity::energy ? Source::xcc
                                     : p.sdr                                 ? Source::sdr
                                                                             : Source::dcmi,
                                     std::move(*p.channel), poll, std::move(p.sdr)));
    return out;
}

} // namespace jp::sensors::ipmi
