// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The BMC's node power readings over IPMI: DCMI Get DCMI Capability Info and
// Get Power Reading (DCMI 1.5), and the Lenovo XClarity Controller's OEM
// accumulated energy counter (NetFn 0x3A, cmd 0x32), the study's own source.
// Requests are built and replies parsed here; transports carry them.
#include "core/error.hpp"
#include "sensors/ipmi/transport.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace jp::sensors::ipmi {

struct DcmiCapabilities {
    int major = 0; // DCMI specification version, "1.5"
    int minor = 0;
    bool power_management = false; // optional platform capability bit 0
};

struct DcmiPowerReading {
    unsigned current_watts = 0;
    unsigned minimum_watts = 0; // over the sampling period
    unsigned maximum_watts = 0;
    unsigned average_watts = 0;
    std::uint32_t timestamp = 0; // the BMC's clock, seconds since 1970
    std::uint32_t period_ms = 0; // statistics reporting time period ("1 s averages")
    bool measurement_active = false;
};

struct XccEnergy {
    double joules = 0;    // the accumulated counter: whole joules + millijoules
    double timestamp = 0; // the BMC's clock when it measured, seconds (ms resolution)
    std::uint16_t fifo_index = 0;
};

// The XCC counter's joule field is 32 bits wide: it wraps there.
inline constexpr double k_xcc_wrap_joules = 4294967296.0;

[[nodiscard]] Request dcmi_capabilities_request();
[[nodiscard]] Request dcmi_power_request();
[[nodiscard]] Request xcc_energy_request();

// Each parser takes the reply (completion code and data) and gives the
// reading, or one line saying what is wrong with it: a completion code (named:
// "insufficient privilege level (0xD4)"), a missing DCMI group id, a short reply.
[[nodiscard]] Result<DcmiCapabilities> parse_dcmi_capabilities(const Response& reply);
[[nodiscard]] Result<DcmiPowerReading> parse_dcmi_power(const Response& reply);
[[nodiscard]] Result<XccEnergy> parse_xcc_energy(const Response& reply);

// "insufficient privilege level (0xD4)", "invalid command (0xC1)", "0x9A".
[[nodiscard]] std::string completion_text(std::uint8_t code);

} // namespace jp::sensors::ipmi
