// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Configuration of the node meters that live outside the kernel: the BMC over
// IPMI (in-band or out-of-band), Redfish, and Slurm's own node energy. Each is
// present when its [sensors.NAME] table is (IPMI in-band is also probed without one).
#include "core/duration.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace jp {

struct IpmiConfig {
    // In-band: the kernel's IPMI device; unset: /dev/ipmi0, /dev/ipmi/0, /dev/ipmidev/0.
    std::optional<std::filesystem::path> device;
    // Out-of-band (IPMI 2.0 RMCP+) when set; then user and password_file are required.
    std::optional<std::string> host;
    int port = 623;
    std::optional<std::string> user;
    std::optional<std::filesystem::path> password_file; // root-only, read by sys::read_secret_file
    int cipher_suite = 17;                              // 3 (HMAC-SHA1) or 17 (HMAC-SHA256)
    std::string privilege = "user";                     // user | operator | admin
    Nanos timeout = std::chrono::seconds{2};            // per request
    int retries = 2;                                    // further tries after a timeout
    // Which reading to use: auto (XCC energy, then DCMI, then SDR watts) | xcc | dcmi | sdr.
    std::string source = "auto";
};

struct RedfishConfig {
    std::string url; // https://bmc.example (the service root is url + /redfish/v1)
    std::optional<std::string> user;
    std::optional<std::filesystem::path> password_file;
    std::optional<std::filesystem::path> ca_file; // unset: the system's CA store
    bool insecure = false;                        // skip TLS verification (said in the output)
    std::optional<std::string> chassis;           // Chassis member id; unset: discovered
    std::string auth = "basic";                   // basic | session (X-Auth-Token)
    Nanos timeout = std::chrono::seconds{5};
};

struct SlurmConfig {
    std::optional<std::string> node; // Slurm node name; unset: $SLURMD_NODENAME, then the host name
    std::string scontrol = "scontrol";
};

} // namespace jp
