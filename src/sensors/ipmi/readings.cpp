// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/ipmi/readings.hpp"

#include "sensors/ipmi/wire.hpp"

#include <fmt/format.h>

namespace jp::sensors::ipmi {
namespace {

constexpr std::uint8_t k_netfn_dcmi = 0x2C;
constexpr std::uint8_t k_dcmi_group = 0xDC;
constexpr std::uint8_t k_netfn_lenovo = 0x3A;

// The reply is usable: completion 0x00 and at least `need` data bytes.
Result<void> check(const Response& reply, std::string_view what, std::size_t need) {
    if (reply.completion != 0x00) {
        return fail(ErrorKind::io, std::string{what},
                    fmt::format("the BMC answered {}", completion_text(reply.completion)));
    }
    if (reply.data.size() < need) {
        return fail(ErrorKind::parse, std::string{what},
                    fmt::format("reply of {} bytes, {} expected", reply.data.size(), need));
    }
    return {};
}

Result<void> check_dcmi(const Response& reply, std::string_view what, std::size_t need) {
    if (auto ok = check(reply, what, need); !ok) {
        return ok;
    }
    if (reply.data[0] != k_dcmi_group) {
        return fail(ErrorKind::parse, std::string{what},
                    fmt::format("reply without the DCMI group id (0x{:02X} instead of 0xDC)",
                                reply.data[0]));
    }
    return {};
}

} // namespace

std::string completion_text(std::uint8_t code) {
    std::string_view name;
    switch (code) {
    case 0xC0:
        name = "node busy";
        break;
    case 0xC1:
        name = "invalid command";
        break;
    case 0xC2:
        name = "command invalid for this LUN";
        break;
    case 0xC3:
        name = "timeout while processing";
        break;
    case 0xC4:
        name = "out of space";
        break;
    case 0xC5:
        name = "reservation cancelled";
        break;
    case 0xC6:
        name = "request data truncated";
        break;
    case 0xC7:
        name = "request data length invalid";
        break;
    case 0xC8:
        name = "request data field length limit exceeded";
        break;
    case 0xC9:
        name = "parameter out of range";
        break;
    case 0xCA:
        name = "cannot return the number of requested bytes";
        break;
    case 0xCB:
        name = "requested sensor, data or record not present";
        break;
    case 0xCC:
        name = "invalid data field in request";
        break;
    case 0xCD:
        name = "command illegal for this sensor or record type";
        break;
    case 0xCE:
        name = "command response could not be provided";
        break;
    case 0xD4:
        name = "insufficient privilege level";
        break;
    case 0xD5:
        name = "command not supported in present state";
        break;
    case 0xD6:
        name = "command sub-function disabled or unavailable";
        break;
    case 0xFF:
        name = "unspecified error";
        break;
    default:
        break;
    }
    return name.empty() ? fmt::format("completion code 0x{:02X}", code)
                        : fmt::format("{} (0x{:02X})", name, code);
}

Request dcmi_capabilities_request() {
    return {k_netfn_dcmi, 0x01, {k_dcmi_group, 0x01}}; // parameter 1: supported capabilities
}

Request dcmi_power_request() {
    // Mode 1: system power statistics; no rolling-average time period.
    return {k_netfn_dcmi, 0x02, {k_dcmi_group, 0x01, 0x00, 0x00}};
}

Request xcc_energy_request() {
    // As Slurm's acct_gather_energy/xcc sends it: the node's accumulated energy.
    return {k_netfn_lenovo, 0x32, {0x04, 0x02, 0x00, 0x00, 0x00}};
}

Result<DcmiCapabilities> parse_dcmi_capabilities(const Response& reply) {
    if (auto ok = check_dcmi(reply, "DCMI Get DCMI Capability Info", 7); !ok) {
        return std::unexpected(ok.error());
    }
    DcmiCapabilities c;
    c.major = reply.data[1];
    c.minor = reply.data[2];
    // data[3]: parameter revision; then mandatory, optional and access capabilities.
    c.power_management = (reply.data[5] & 0x01U) != 0;
    return c;
}

Result<DcmiPowerReading> parse_dcmi_power(const Response& reply) {
    if (auto ok = check_dcmi(reply, "DCMI Get Power Reading", 18); !ok) {
        return std::unexpected(ok.error());
    }
    const std::span<const std::uint8_t> d{reply.data};
    DcmiPowerReading r;
    r.current_watts = get16(d, 1);
    r.minimum_watts = get16(d, 3);
    r.maximum_watts = get16(d, 5);
    r.average_watts = get16(d, 7);
    r.timestamp = get32(d, 9);
    r.period_ms = get32(d, 13);
    r.measurement_active = (d[17] & 0x40U) != 0;
    return r;
}

Result<XccEnergy> parse_xcc_energy(const Response& reply) {
    // The SD650 form is 14 data bytes (16 with command and completion code);
    // longer forms (SD650 V2) start with the same fields.
    if (auto ok = check(reply, "Lenovo XCC energy (NetFn 0x3A cmd 0x32)", 14); !ok) {
        return std::unexpected(ok.error());
    }
    const std::span<const std::uint8_t> d{reply.data};
    const unsigned mj = get16(d, 6);
    const unsigned ms = get16(d, 12);
    if (mj > 999 || ms > 999) {
        return fail(ErrorKind::parse, "Lenovo XCC energy (NetFn 0x3A cmd 0x32)",
                    fmt::format("millijoules {} or milliseconds {} out of range: not the "
                                "energy counter this command answers on XCC",
                                mj, ms));
    }
    XccEnergy e;
    e.fifo_index = static_cast<std::uint16_t>(get16(d, 0));
    e.joules = static_cast<double>(get32(d, 2)) + mj / 1000.0;
    e.timestamp = static_cast<double>(get32(d, 8)) + ms / 1000.0;
    return e;
}

} // namespace jp::sensors::ipmi
