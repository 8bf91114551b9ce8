// SPDX-License-Identifier: BSD-3-Clause
#include "config/sources_parse.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <fmt/format.h>

namespace jp {
namespace {

constexpr std::array<std::string_view, 10> k_ipmi_keys{
    "device",       "host",      "port",    "user",    "password_file",
    "cipher_suite", "privilege", "timeout", "retries", "source"};
constexpr std::array<std::string_view, 8> k_redfish_keys{
    "url", "user", "password_file", "ca_file", "insecure", "chassis", "auth", "timeout"};
constexpr std::array<std::string_view, 2> k_slurm_keys{"node", "scontrol"};

// A string key that must be one of choices.
Result<void> choice(const TomlScope& s,
                    std::string_view key,
                    std::initializer_list<std::string_view> choices,
                    std::string& out) {
    auto v = s.string(key);
    if (!v) {
        return std::unexpected(v.error());
    }
    if (!*v) {
        return {};
    }
    if (std::ranges::find(choices, std::string_view{**v}) == choices.end()) {
        const std::vector<std::string_view> all{choices};
        return s.error(*s.table.get(key), key, fmt::format("must be one of {}", joined(all)));
    }
    out = **v;
    return {};
}

template <class T> Result<void> optional_string(const TomlScope& s, std::string_view key, T& out) {
    auto v = s.string(key);
    if (!v) {
        return std::unexpected(v.error());
    }
    if (*v) {
        if ((*v)->empty()) {
            return s.error(*s.table.get(key), key, "must not be empty");
        }
        out.emplace(**v);
    }
    return {};
}

Result<void> all_of(std::initializer_list<Result<void>> results) {
    for (const auto& r : results) {
        if (!r) {
            return r;
        }
    }
    return {};
}

Result<void> parse_ipmi(const TomlScope& s, IpmiConfig& out) {
    if (auto r =
            all_of({optional_string(s, "device", out.device), optional_string(s, "host", out.host),
                    optional_string(s, "user", out.user),
                    optional_string(s, "password_file", out.password_file),
                    s.integer("port", 1, 65535, out.port), s.integer("retries", 0, 10, out.retries),
                    s.duration("timeout", std::chrono::milliseconds{10}, out.timeout),
                    choice(s, "privilege", {"user", "operator", "admin"}, out.privilege),
                    choice(s, "source", {"auto", "xcc", "dcmi", "sdr"}, out.source)});
        !r) {
        return r;
    }
    if (const auto* cs = s.table.get("cipher_suite")) {
        if (auto r = s.integer("cipher_suite", 0, 255, out.cipher_suite); !r) {
            return r;
        }
        if (out.cipher_suite != 3 && out.cipher_suite != 17) {
            return s.error(*cs, "cipher_suite",
                           "must be 3 (HMAC-SHA1, AES-128) or 17 (HMAC-SHA256, AES-128)");
        }
    }
    if (out.host && out.device) {
        return s.error(*s.table.get("device"), "device",
                       "names the in-band device, but host asks for out-of-band: set one");
    }
    if (out.host && (!out.user || !out.password_file)) {
        return s.error(*s.table.get("host"), "host",
                       "out-of-band IPMI needs user and password_file too");
    }
    if (!out.host) {
        for (const auto* key : {"user", "password_file"}) {
            if (const auto* n = s.table.get(key)) {
                return s.error(*n, key, "is for out-of-band IPMI: set host as well");
            }
        }
    }
    return {};
}

Result<void> parse_redfish(const TomlScope& s, RedfishConfig& out) {
    std::optional<std::string> url;
    if (auto r = all_of({optional_string(s, "url", url), optional_string(s, "user", out.user),
                         optional_string(s, "password_file", out.password_file),
                         optional_string(s, "ca_file", out.ca_file),
                         optional_string(s, "chassis", out.chassis),
                         choice(s, "auth", {"basic", "session"}, out.auth),
                         s.duration("timeout", std::chrono::milliseconds{10}, out.timeout)});
        !r) {
        return r;
    }
    auto flag = s.boolean("insecure");
    if (!flag) {
        return std::unexpected(flag.error());
    }
    out.insecure = flag->value_or(false);
    if (!url) {
        return s.error(s.table, "url", "is required (the BMC's address, e.g. https://bmc1)");
    }
    if (!url->starts_with("https://") && !url->starts_with("http://")) {
        return s.error(*s.table.get("url"), "url", "must start with https:// (or http://)");
    }
    while (url->ends_with('/')) {
        url->pop_back();
    }
    out.url = std::move(*url);
    if (out.user.has_value() != out.password_file.has_value()) {
        return s.error(*s.table.get(out.user ? "user" : "password_file"),
                       out.user ? "user" : "password_file", "user and password_file go together");
    }
    return {};
}

Result<void> parse_slurm(const TomlScope& s, SlurmConfig& out) {
    std::optional<std::string> scontrol;
    if (auto r = all_of(
            {optional_string(s, "node", out.node), optional_string(s, "scontrol", scontrol)});
        !r) {
        return r;
    }
    if (scontrol) {
        out.scontrol = *scontrol;
    }
    return {};
}

} // namespace

std::span<const std::string_view> source_keys(std::string_view backend) noexcept {
    if (backend == "ipmi") {
        return k_ipmi_keys;
    }
    if (backend == "redfish") {
        return k_redfish_keys;
    }
    if (backend == "slurm") {
        return k_slurm_keys;
    }
    return {};
}

Result<void> parse_source(const TomlScope& s, std::string_view backend, Config& out) {
    if (backend == "ipmi") {
        return parse_ipmi(s, out.ipmi.emplace());
    }
    if (backend == "redfish") {
        return parse_redfish(s, out.redfish.emplace());
    }
    if (backend == "slurm") {
        return parse_slurm(s, out.slurm.emplace());
    }
    return {};
}

} // namespace jp
