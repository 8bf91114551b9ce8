// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The fallback node meter: sensors in Watts from the BMC's Sensor Data Record
// repository (Full Sensor Records, threshold-based, base unit 6 = Watts), read
// with Get Sensor Reading and converted with the record's linear formula.
#include "core/error.hpp"
#include "sensors/ipmi/transport.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace jp::sensors::ipmi {

struct SdrPowerSensor {
    std::string name; // the record's ID string ("SysPower", "Total_Power")
    std::uint16_t record_id = 0;
    std::uint8_t owner = 0x20; // sensor owner (slave address of the BMC)
    std::uint8_t lun = 0;
    std::uint8_t number = 0; // sensor number
    std::uint8_t entity =
        0; // entity id (0x07 system board, 0x15 power unit, 0x13 power module ...)
    // y = (M*x + B*10^Bexp) * 10^Rexp, with x unsigned, 1's or 2's complement per the record
    int m = 1;
    int b = 0;
    int b_exp = 0;
    int r_exp = 0;
    std::uint8_t analog_format = 0; // 0 unsigned, 1 one's complement, 2 two's complement
    std::uint8_t linearization = 0; // 0 linear; others are refused (not a power meter we can read)
};

// Parses one SDR (the whole record: 5-byte header + body). A Full Sensor
// Record (type 0x01) of a threshold sensor (reading type 0x01) with an analog
// reading, base unit Watts (no rate, percentage or modifier unit in use) and linear
// linearization gives a sensor; anything else (another type, another unit,
// non-linear, shorter than its header's length or than 48 bytes) gives nullopt.
// The name is one printable line (6-bit packed ASCII decoded, other bytes as is).
[[nodiscard]] std::optional<SdrPowerSensor>
parse_power_record(std::span<const std::uint8_t> record);

// The record's conversion of a raw reading byte to watts: the byte is read as
// unsigned, one's or two's complement per analog_format, then y = (M*x + B*10^Bexp) * 10^Rexp.
[[nodiscard]] double to_watts(const SdrPowerSensor& sensor, std::uint8_t raw) noexcept;

// Walks the repository (Get SDR Repository Info, Reserve SDR Repository, Get
// SDR: each header, then Full Sensor Records' bodies in pieces of at most 32
// bytes, halved down to 4 while the BMC refuses them with 0xCA/0xC7/0xC8/0xFF;
// reserving again, up to 8 times a piece, when it answers 0xC5) and returns
// every power sensor owned by the BMC (owner 0x20), in repository order; an
// empty repository gives none. An error is a transport failure, a completion
// code, a reply without record bytes, a loop (a next record id read before) or
// more than 4096 records: one line naming the command and record id.
[[nodiscard]] Result<std::vector<SdrPowerSensor>> find_power_sensors(Transport& transport);

// Get Sensor Reading (NetFn 0x04, cmd 0x2D) in watts. An error when the BMC
// answers with a completion code (io), says the reading is unavailable (bit 5
// of byte 2; io) or the sensor's scanning is disabled (bit 6 clear;
// unsupported), or when the sensor is owned by another controller than the BMC
// (unsupported: no bridging).
[[nodiscard]] Result<double> read_watts(Transport& transport, const SdrPowerSensor& sensor);

// The sensor to use as the node meter: the one whose name says total/system/
// node/"Pwr Consumption"/meter power (not one supply's: "PS1 Input Power"),
// else the first on entity 0x07 (system board), else the first. nullopt when
// the list is empty.
[[nodiscard]] std::optional<SdrPowerSensor>
pick_node_sensor(const std::vector<SdrPowerSensor>& sensors);

} // namespace jp::sensors::ipmi
