// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Out-of-band IPMI: an IPMI 2.0 RMCP+ session to a BMC over UDP (cipher suites
// 3 and 17), kept open across calls, closed when the transport is destroyed.
#include "core/duration.hpp"
#include "core/error.hpp"
#include "sensors/ipmi/transport.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace jp::sensors::ipmi {

struct LanOptions {
    std::string host;
    int port = 623;
    std::string user;
    std::string password;       // from a root-only file (sys::read_secret_file); never logged
    int cipher_suite = 17;      // 3: HMAC-SHA1 / HMAC-SHA1-96 / AES-CBC-128; 17: the SHA-256 forms
    std::uint8_t privilege = 2; // 2 user, 3 operator, 4 admin
    Nanos timeout = std::chrono::seconds{2}; // per attempt
    int retries = 2;                         // further attempts after the first
};

// Opens the session (Open Session, RAKP 1-4) before returning, so a wrong
// password, a dead port or a refused privilege is reported here, naming host:port.
[[nodiscard]] Result<std::unique_ptr<Transport>> open_lan(const LanOptions& options);

// How many RMCP+ sessions a transport from open_lan has opened: 1 unless the
// BMC dropped one and it was re-opened; 0 for any other transport (tests).
[[nodiscard]] int lan_sessions_opened(const Transport& transport) noexcept;

} // namespace jp::sensors::ipmi
