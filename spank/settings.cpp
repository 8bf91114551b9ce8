// SPDX-License-Identifier: BSD-3-Clause
#include "settings.hpp"

#include <charconv>

namespace jp::spank {
namespace {

bool plain_text(std::string_view v) {
    for (const char c : v) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            return false;
        }
    }
    return v.size() <= 1024;
}

bool to_ms(std::string_view v, int& out) {
    int n = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc{} || end != v.data() + v.size() || n < 100 || n > 600000) {
        return false;
    }
    out = n;
    return true;
}

// Up to `max` bytes of what the user wrote, for a message that goes to slurmd's
// log and the job's stderr: control characters as \xNN, so that it stays one
// line and cannot forge log lines or send escape sequences to a terminal.
std::string shown(std::string_view text, std::size_t max) {
    static constexpr char k_hex[] = "0123456789abcdef";
    std::string out;
    for (const char c : text.substr(0, max)) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            out += {'\\', 'x', k_hex[u >> 4], k_hex[u & 0xf]};
        } else {
            out += c;
        }
    }
    return out;
}

} // namespace

std::string apply_setting(Settings& s, std::string_view item, bool from_site) {
    const auto eq = item.find('=');
    const auto key = item.substr(0, eq);
    const auto value = eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1);
    if (eq == std::string_view::npos || value.empty() || !plain_text(value)) {
        return "'" + shown(item, 80) + "' is not KEY=VALUE";
    }
    if (key == "result" || (from_site && key == "site")) {
        if (value != "yes" && value != "no") {
            return std::string{key} + " expects yes or no";
        }
        (key == "result" ? s.result : s.site) = value == "yes";
        return {};
    }
    if (from_site && key == "site_dir") {
        if (value.front() != '/') {
            return "site_dir expects an absolute path";
        }
        s.site_dir = value;
        return {};
    }
    std::string* target = key == "interval" ? &s.interval
                          : key == "dir"    ? &s.dir
                          : key == "label"  ? &s.label
                                            : nullptr;
    if (from_site && target == nullptr) {
        target = key == "jouleprof"    ? &s.jouleprof
                 : key == "sysfs_root" ? &s.sysfs_root
                 : key == "socket"     ? &s.socket
                 : key == "config"     ? &s.config
                                       : nullptr;
        if (key == "ready_timeout_ms" || key == "stop_timeout_ms") {
            auto& ms = key == "ready_timeout_ms" ? s.ready_timeout_ms : s.stop_timeout_ms;
            return to_ms(value, ms) ? "" : std::string{key} + " expects 100..600000 (ms)";
        }
    }
    if (target == nullptr) {
        return "unknown option '" + shown(key, 40) +
               (from_site ? "'" : "' (expected interval=, dir=, label=, result=)");
    }
    *target = value;
    return {};
}

std::string apply_user_options(Settings& s, std::string_view opts) {
    while (!opts.empty()) {
        const auto comma = opts.find(',');
        const auto item = opts.substr(0, comma);
        if (!item.empty()) {
            if (auto why = apply_setting(s, item, false); !why.empty()) {
                return why;
            }
        }
        opts = comma == std::string_view::npos ? std::string_view{} : opts.substr(comma + 1);
    }
    return {};
}

} // namespace jp::spank
