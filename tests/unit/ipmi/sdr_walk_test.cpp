// SPDX-License-Identifier: BSD-3-Clause
// The SDR repository walk against a scripted BMC (pieces, a cancelled
// reservation, a loop, completion codes), readings and the choice of the node sensor.
#include "scripted_bmc.hpp"
#include "sdr_records.hpp"
#include "sensors/ipmi/sdr.hpp"
#include "sim_bmc.hpp"

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <initializer_list>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace jp::sensors::ipmi {
namespace {

using namespace std::chrono_literals;
using namespace test;

// ---------------------------------------------------------------- the walk

TEST(SdrWalk, FindsThePowerSensorsAmongOtherRecords) {
    ScriptedBmc bmc(mixed_repository());
    auto found = find_power_sensors(bmc);
    ASSERT_TRUE(found) << found.error().message();
    ASSERT_EQ(found->size(), 2U);
    EXPECT_EQ((*found)[0].name, "CPU Power");
    EXPECT_EQ((*found)[0].record_id, 4);
    EXPECT_EQ((*found)[1].name, "Sys Power");
    EXPECT_EQ((*found)[1].number, 0x20);
    EXPECT_EQ(bmc.reservations, 1);
    ASSERT_GE(bmc.calls.size(), 2U);
    EXPECT_EQ(bmc.calls[0].cmd, 0x20); // repository info first, then the reservation
    EXPECT_EQ(bmc.calls[1].cmd, 0x22);
    // Headers of all 7 records; bodies only of the 4 Full Sensor Records (51+ bytes each:
    // 2 pieces of at most 32).
    const auto gets = bmc.get_sdr_calls();
    EXPECT_EQ(gets.size(), 7U + 4U * 2U);
    for (const auto& g : gets) {
        EXPECT_LE(g.data[5], 32);
        EXPECT_EQ(g.data[0] | (g.data[1] << 8), 0x0101); // the reservation id
    }
    const auto node = pick_node_sensor(*found);
    ASSERT_TRUE(node);
    EXPECT_EQ(node->name, "Sys Power");
}

TEST(SdrWalk, ReadsInSmallerPiecesWhenTheBmcRefusesLargeOnes) {
    for (const std::uint8_t code : std::initializer_list<std::uint8_t>{0xCA, 0xFF}) {
        ScriptedBmc bmc(mixed_repository());
        bmc.max_piece = 10;
        bmc.refuse_code = code;
        auto found = find_power_sensors(bmc);
        ASSERT_TRUE(found) << found.error().message();
        ASSERT_EQ(found->size(), 2U);
        EXPECT_EQ((*found)[1].name, "Sys Power");
        // Once learned (32 -> 16 -> 8), no piece asks more than the BMC gives.
        const auto gets = bmc.get_sdr_calls();
        int refused = 0;
        for (const auto& g : gets) {
            refused += g.data[5] > 10 ? 1 : 0;
        }
        EXPECT_EQ(refused, 2) << "code 0x" << std::hex << int{code};
    }
}

TEST(SdrWalk, RefusalOfTinyPiecesIsOneLine) {
    ScriptedBmc bmc(mixed_repository());
    bmc.max_piece = 2;
    auto found = find_power_sensors(bmc);
    ASSERT_FALSE(found);
    EXPECT_TRUE(one_line(found.error().message())) << found.error().message();
    EXPECT_NE(found.error().message().find("Get SDR"), std::string::npos);
    EXPECT_NE(found.error().message().find("0xCA"), std::string::npos);
    EXPECT_LT(bmc.calls.size(), 10U);
}

TEST(SdrWalk, ReservesAgainWhenTheBmcCancelsTheReservation) {
    ScriptedBmc bmc(mixed_repository());
    bmc.cancel_at = {0, 4, 5, 9};
    auto found = find_power_sensors(bmc);
    ASSERT_TRUE(found) << found.error().message();
    ASSERT_EQ(found->size(), 2U);
    EXPECT_EQ((*found)[0].name, "CPU Power");
    EXPECT_EQ((*found)[1].name, "Sys Power");
    EXPECT_EQ(bmc.reservations, 5);
    // Every Get SDR after a renewal carries the new reservation id.
    const auto gets = bmc.get_sdr_calls();
    EXPECT_EQ(gets.back().data[0] | (gets.back().data[1] << 8), 0x0105);
}

TEST(SdrWalk, ReservationCancelledForeverIsOneLine) {
    ScriptedBmc bmc(mixed_repository());
    bmc.cancel_always = true;
    auto found = find_power_sensors(bmc);
    ASSERT_FALSE(found);
    EXPECT_TRUE(one_line(found.error().message()));
    EXPECT_NE(found.error().message().find("reservation cancelled (0xC5)"), std::string::npos)
        << found.error().message();
    EXPECT_LE(bmc.reservations, 10);
}

TEST(SdrWalk, LoopIsAnError) {
    ScriptedBmc bmc(mixed_repository());
    bmc.next_of[4] = 2; // record 4 names record 2 as the next again
    auto found = find_power_sensors(bmc);
    ASSERT_FALSE(found);
    EXPECT_EQ(found.error().kind, ErrorKind::parse);
    EXPECT_TRUE(one_line(found.error().message()));
    EXPECT_NE(found.error().message().find("loop"), std::string::npos) << found.error().message();
    EXPECT_NE(found.error().message().find("0x0002"), std::string::npos);
}

TEST(SdrWalk, RecordNamingItselfIsALoop) {
    ScriptedBmc bmc({watts(9, 1, "Total_Power").bytes()});
    bmc.next_of[9] = 0x0000; // the first record's "next" is the first again
    auto found = find_power_sensors(bmc);
    ASSERT_FALSE(found);
    EXPECT_NE(found.error().message().find("loop"), std::string::npos);
    EXPECT_LT(bmc.calls.size(), 10U);
}

TEST(SdrWalk, EndlessRepositoryStopsAtTheRecordLimit) {
    // A BMC that names a new record each time (every id answers the same record).
    class Endless : public Transport {
    public:
        int gets = 0;
        Result<Response> call(const Request& r) override {
            if (r.cmd == 0x20) {
                return Response{0x00, {0x51, 0x05, 0x00}};
            }
            if (r.cmd == 0x22) {
                return Response{0x00, {0x01, 0x00}};
            }
            ++gets;
            const auto next = static_cast<std::uint16_t>((r.data[2] | (r.data[3] << 8)) + 1);
            return Response{0x00, {lo(next), hi(next), 0x00, 0x00, 0x51, 0x12, 0x0B}};
        }
        [[nodiscard]] std::string describe() const override { return "endless"; }
    } bmc;
    auto found = find_power_sensors(bmc);
    ASSERT_FALSE(found);
    EXPECT_TRUE(one_line(found.error().message()));
    EXPECT_NE(found.error().message().find("more than 4096 records"), std::string::npos)
        << found.error().message();
    EXPECT_EQ(bmc.gets, 4096);
}

TEST(SdrWalk, CompletionCodeOnGetSdrIsOneLineNamingTheCommand) {
    ScriptedBmc bmc(mixed_repository());
    bmc.get_sdr_completion = 0xD4;
    auto found = find_power_sensors(bmc);
    ASSERT_FALSE(found);
    const std::string line = found.error().message();
    EXPECT_TRUE(one_line(line)) << line;
    EXPECT_NE(line.find("Get SDR (NetFn 0x0A cmd 0x23) record 0x0000"), std::string::npos) << line;
    EXPECT_NE(line.find("insufficient privilege level (0xD4)"), std::string::npos) << line;
    EXPECT_FALSE(found.error().hint.empty());
}

TEST(SdrWalk, CompletionCodeOnRepositoryInfoOrReserve) {
    class Refusing : public Transport {
    public:
        std::uint8_t cmd = 0;
        Result<Response> call(const Request& r) override {
            if (r.cmd == cmd) {
                return Response{0xC1, {}};
            }
            return Response{0x00, {0x51, 0x01, 0x00}};
        }
        [[nodiscard]] std::string describe() const override { return "refusing"; }
    } bmc;
    bmc.cmd = 0x20;
    auto info = find_power_sensors(bmc);
    ASSERT_FALSE(info);
    EXPECT_NE(info.error().message().find("Get SDR Repository Info"), std::string::npos);
    EXPECT_NE(info.error().message().find("invalid command (0xC1)"), std::string::npos);
    bmc.cmd = 0x22;
    auto reserve = find_power_sensors(bmc);
    ASSERT_FALSE(reserve);
    EXPECT_NE(reserve.error().message().find("Reserve SDR Repository"), std::string::npos);
}

TEST(SdrWalk, EmptyRepositoryHasNoSensors) {
    ScriptedBmc bmc({});
    auto found = find_power_sensors(bmc);
    ASSERT_TRUE(found) << found.error().message();
    EXPECT_TRUE(found->empty());
    EXPECT_EQ(bmc.calls.size(), 1U); // only the repository info
}

TEST(SdrWalk, ReplyWithoutRecordBytesIsAnError) {
    ScriptedBmc bmc(mixed_repository());
    bmc.empty_pieces = true;
    auto found = find_power_sensors(bmc);
    ASSERT_FALSE(found);
    EXPECT_TRUE(one_line(found.error().message()));
    EXPECT_NE(found.error().message().find("no record bytes"), std::string::npos);
    EXPECT_LT(bmc.calls.size(), 5U);
}

TEST(SdrWalk, TransportFailurePassesThrough) {
    class Dead : public Transport {
    public:
        Result<Response> call(const Request& /*r*/) override {
            return fail(ErrorKind::io, "out-of-band 10.0.0.5:623", "no reply within 2 s");
        }
        [[nodiscard]] std::string describe() const override { return "dead"; }
    } bmc;
    auto found = find_power_sensors(bmc);
    ASSERT_FALSE(found);
    EXPECT_EQ(found.error().message(), "out-of-band 10.0.0.5:623: no reply within 2 s");
}

// ---------------------------------------------------------------- readings

TEST(SdrRead, ReadsWattsWithGetSensorReading) {
    ScriptedBmc bmc({});
    FullRecord f = watts(1, 0x42, "Total_Power");
    f.lun_byte = 0x02;
    f.m = 2;
    const auto s = parsed(f);
    bmc.readings[0x42] = {0x96, 0xC0, 0xC0, 0x00};
    auto w = read_watts(bmc, s);
    ASSERT_TRUE(w) << w.error().message();
    EXPECT_DOUBLE_EQ(*w, 300.0);
    ASSERT_EQ(bmc.calls.size(), 1U);
    EXPECT_EQ(bmc.calls[0].netfn, 0x04);
    EXPECT_EQ(bmc.calls[0].cmd, 0x2D);
    EXPECT_EQ(bmc.calls[0].data, Bytes{0x42});
    EXPECT_EQ(bmc.calls[0].lun, 2);
}

TEST(SdrRead, UnavailableDisabledRefusedOrShortIsAnError) {
    ScriptedBmc bmc({});
    const auto s = parsed(watts(1, 0x42, "Total_Power"));
    bmc.readings[0x42] = {0x96, 0xE0}; // reading unavailable
    auto unavailable = read_watts(bmc, s);
    ASSERT_FALSE(unavailable);
    EXPECT_NE(unavailable.error().message().find("unavailable"), std::string::npos);
    EXPECT_NE(unavailable.error().message().find("Total_Power"), std::string::npos);

    bmc.readings[0x42] = {0x96, 0x80}; // scanning disabled
    auto disabled = read_watts(bmc, s);
    ASSERT_FALSE(disabled);
    EXPECT_EQ(disabled.error().kind, ErrorKind::unsupported);
    EXPECT_NE(disabled.error().message().find("scanning is disabled"), std::string::npos);

    bmc.readings[0x42] = {0x96};
    auto shorter = read_watts(bmc, s);
    ASSERT_FALSE(shorter);
    EXPECT_EQ(shorter.error().kind, ErrorKind::parse);

    bmc.readings.clear(); // the scripted BMC answers 0xC1
    auto refused = read_watts(bmc, s);
    ASSERT_FALSE(refused);
    EXPECT_TRUE(one_line(refused.error().message()));
    EXPECT_NE(
        refused.error().message().find("Get Sensor Reading (NetFn 0x04 cmd 0x2D) sensor 0x42"),
        std::string::npos)
        << refused.error().message();
    EXPECT_NE(refused.error().message().find("(0xC1)"), std::string::npos);
}

TEST(SdrRead, SensorOfAnotherControllerIsUnsupported) {
    ScriptedBmc bmc({});
    FullRecord f = watts(1, 0x42, "PSU Power");
    f.owner = 0x2C;
    auto w = read_watts(bmc, parsed(f));
    ASSERT_FALSE(w);
    EXPECT_EQ(w.error().kind, ErrorKind::unsupported);
    EXPECT_TRUE(bmc.calls.empty());
}

TEST(SdrPick, PrefersTheNodeByNameThenTheSystemBoard) {
    const auto sensor = [](std::string name, std::uint8_t entity) {
        SdrPowerSensor s;
        s.name = std::move(name);
        s.entity = entity;
        return s;
    };
    EXPECT_FALSE(pick_node_sensor({}));
    EXPECT_EQ(pick_node_sensor({sensor("CPU Power", 3), sensor("GPU Power", 0x0B)})->name,
              "CPU Power");
    EXPECT_EQ(pick_node_sensor({sensor("CPU Power", 3), sensor("Board Pwr", 7)})->name,
              "Board Pwr");
    EXPECT_EQ(pick_node_sensor({sensor("PS1 Input Power", 0x0A), sensor("PSU2 Total", 0x0A),
                                sensor("Pwr Consumption", 7)})
                  ->name,
              "Pwr Consumption");
    EXPECT_EQ(pick_node_sensor({sensor("CPU Power", 7), sensor("SysPower", 7)})->name, "SysPower");
    EXPECT_EQ(
        pick_node_sensor({sensor("PS1 Input Power", 0x0A), sensor("Total_Power", 0x15)})->name,
        "Total_Power");
    EXPECT_EQ(pick_node_sensor({sensor("Power Meter", 0x15)})->name, "Power Meter");
    EXPECT_EQ(pick_node_sensor({sensor("PSU Total Power", 0x0A)})->name, "PSU Total Power");
    EXPECT_EQ(pick_node_sensor({sensor("Node Power", 0x15), sensor("x", 7)})->name, "Node Power");
}

} // namespace
} // namespace jp::sensors::ipmi
