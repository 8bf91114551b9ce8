// SPDX-License-Identifier: BSD-3-Clause
// The SDR fallback: Full Sensor Records parsed and converted from hand-made bytes.
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

// ---------------------------------------------------------------- parsing

TEST(SdrParse, AppendixBRecordIsSysPower) {
    const Bytes record = from_hex(k_sys_power_hex);
    ASSERT_EQ(record.size(), 56U);
    const auto s = parse_power_record(record);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->name, "SysPower");
    EXPECT_EQ(s->record_id, 0x0000);
    EXPECT_EQ(s->owner, 0x20);
    EXPECT_EQ(s->lun, 0);
    EXPECT_EQ(s->number, 0x10);
    EXPECT_EQ(s->entity, 0x07);
    EXPECT_EQ(s->m, 4);
    EXPECT_EQ(s->b, 0);
    EXPECT_EQ(s->b_exp, 0);
    EXPECT_EQ(s->r_exp, 0);
    EXPECT_EQ(s->analog_format, 0);
    EXPECT_EQ(s->linearization, 0);
    EXPECT_DOUBLE_EQ(to_watts(*s, 103), 412.0);
    EXPECT_DOUBLE_EQ(to_watts(*s, 255), 1020.0);
}

TEST(SdrParse, FieldsAndOwnerLun) {
    FullRecord f;
    f.id = 0x1234;
    f.lun_byte = 0xF3; // channel 15, FRU LUN 0, sensor LUN 3
    f.number = 0x77;
    f.entity = 0x15;
    const auto s = parsed(f);
    EXPECT_EQ(s.record_id, 0x1234);
    EXPECT_EQ(s.lun, 3);
    EXPECT_EQ(s.number, 0x77);
    EXPECT_EQ(s.entity, 0x15);
    EXPECT_EQ(s.name, "Total_Power");
}

TEST(SdrParse, NegativeMAndBWithExponents) {
    FullRecord f;
    f.m = -3;
    f.b = -500;
    f.b_exp = 1;
    f.r_exp = -2;
    const auto s = parsed(f);
    EXPECT_EQ(s.m, -3);
    EXPECT_EQ(s.b, -500);
    EXPECT_EQ(s.b_exp, 1);
    EXPECT_EQ(s.r_exp, -2);
    // (-3*100 + -500*10) * 0.01
    EXPECT_NEAR(to_watts(s, 100), -53.0, 1e-9);
}

TEST(SdrParse, TenBitExtremesAndFourBitExponents) {
    FullRecord f;
    f.m = 511;
    f.b = -512;
    f.b_exp = -8;
    f.r_exp = 7;
    auto s = parsed(f);
    EXPECT_EQ(s.m, 511);
    EXPECT_EQ(s.b, -512);
    EXPECT_EQ(s.b_exp, -8);
    EXPECT_EQ(s.r_exp, 7);
    f.m = -512;
    f.b = 511;
    f.b_exp = 7;
    f.r_exp = -8;
    s = parsed(f);
    EXPECT_EQ(s.m, -512);
    EXPECT_EQ(s.b, 511);
    EXPECT_EQ(s.b_exp, 7);
    EXPECT_EQ(s.r_exp, -8);
}

TEST(SdrParse, RExponentScalesAndBOffsets) {
    FullRecord f;
    f.m = 2;
    f.b = 10;
    f.b_exp = 1; // B * 10 = 100
    f.r_exp = 1; // tens of watts
    EXPECT_NEAR(to_watts(parsed(f), 50), (2 * 50 + 100) * 10.0, 1e-9);
    f.r_exp = -1;
    EXPECT_NEAR(to_watts(parsed(f), 50), (2 * 50 + 100) * 0.1, 1e-9);
}

TEST(SdrConvert, TwosComplementReading) {
    FullRecord f;
    f.units1 = 0x80; // analog data format 2: two's complement
    f.m = 5;
    const auto s = parsed(f);
    EXPECT_EQ(s.analog_format, 2);
    EXPECT_DOUBLE_EQ(to_watts(s, 0xF6), -50.0); // -10
    EXPECT_DOUBLE_EQ(to_watts(s, 0x80), -640.0);
    EXPECT_DOUBLE_EQ(to_watts(s, 0x7F), 635.0);
    EXPECT_DOUBLE_EQ(to_watts(s, 0x00), 0.0);
}

TEST(SdrConvert, OnesComplementReading) {
    FullRecord f;
    f.units1 = 0x40; // analog data format 1: one's complement
    const auto s = parsed(f);
    EXPECT_EQ(s.analog_format, 1);
    EXPECT_DOUBLE_EQ(to_watts(s, 0xFE), -1.0);
    EXPECT_DOUBLE_EQ(to_watts(s, 0xFF), 0.0); // -0
    EXPECT_DOUBLE_EQ(to_watts(s, 0x80), -127.0);
    EXPECT_DOUBLE_EQ(to_watts(s, 0x7F), 127.0);
}

TEST(SdrConvert, UnsignedReadingUsesAllEightBits) {
    const auto s = parsed(FullRecord{});
    EXPECT_DOUBLE_EQ(to_watts(s, 0xFF), 255.0);
    EXPECT_DOUBLE_EQ(to_watts(s, 0x80), 128.0);
}

TEST(SdrParse, RefusesOtherUnits) {
    for (const std::uint8_t unit : std::initializer_list<std::uint8_t>{
             1, 4, 5, 7, 0}) { // degrees C, volts, amps, joules, none
        FullRecord f;
        f.base_unit = unit;
        EXPECT_FALSE(parse_power_record(f.bytes())) << "base unit " << int{unit};
    }
    FullRecord rate;
    rate.units1 = 0x20; // per hour
    EXPECT_FALSE(parse_power_record(rate.bytes()));
    FullRecord percent;
    percent.units1 = 0x01;
    EXPECT_FALSE(parse_power_record(percent.bytes()));
    FullRecord per_volt;
    per_volt.units1 = 0x02; // base / modifier
    per_volt.modifier_unit = 4;
    EXPECT_FALSE(parse_power_record(per_volt.bytes()));
    FullRecord unused_modifier; // a modifier flag with no modifier unit is still watts
    unused_modifier.units1 = 0x02;
    EXPECT_TRUE(parse_power_record(unused_modifier.bytes()));
}

TEST(SdrParse, RefusesNonLinearAndNonAnalog) {
    for (const std::uint8_t lin :
         std::initializer_list<std::uint8_t>{0x01, 0x07, 0x0B, 0x70, 0x7F}) {
        FullRecord f;
        f.linearization = lin;
        EXPECT_FALSE(parse_power_record(f.bytes())) << "linearization " << int{lin};
    }
    FullRecord reserved_bit; // bit 7 is reserved: still linear
    reserved_bit.linearization = 0x80;
    EXPECT_TRUE(parse_power_record(reserved_bit.bytes()));
    FullRecord no_analog;
    no_analog.units1 = 0xC0; // analog data format 3: no analog reading
    EXPECT_FALSE(parse_power_record(no_analog.bytes()));
    FullRecord discrete;
    discrete.reading_type = 0x6F; // sensor-specific discrete
    EXPECT_FALSE(parse_power_record(discrete.bytes()));
}

TEST(SdrParse, RefusesOtherRecordTypes) {
    Bytes compact = FullRecord{}.bytes();
    compact[3] = 0x02;
    EXPECT_FALSE(parse_power_record(compact));
    EXPECT_FALSE(parse_power_record(other_record(1, 0x11, 11))); // FRU device locator
    EXPECT_FALSE(parse_power_record(other_record(1, 0x12, 11))); // MC device locator
}

TEST(SdrParse, RefusesTruncatedRecords) {
    const Bytes whole = FullRecord{}.bytes();
    for (std::size_t n = 0; n < whole.size(); ++n) {
        EXPECT_FALSE(parse_power_record(std::span(whole).first(n))) << n << " bytes";
    }
    Bytes long_header = whole;
    long_header[4] = static_cast<std::uint8_t>(long_header[4] + 1); // says one more byte
    EXPECT_FALSE(parse_power_record(long_header));
    Bytes short_body = other_record(1, 0x01, 40); // a full record type with 45 bytes
    EXPECT_FALSE(parse_power_record(short_body));
}

TEST(SdrParse, BytesAfterTheRecordAreIgnored) {
    Bytes more = FullRecord{}.bytes();
    more.insert(more.end(), {'X', 'Y', 'Z'});
    const auto s = parse_power_record(more);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->name, "Total_Power");
}

TEST(SdrParse, IdStringForms) {
    FullRecord empty;
    empty.name = "";
    auto s = parse_power_record(empty.bytes());
    ASSERT_TRUE(s);
    EXPECT_EQ(s->name, "");

    FullRecord padded;
    padded.name = std::string("Pwr Consumption", 15) + std::string(1, '\0');
    EXPECT_EQ(parsed(padded).name, "Pwr Consumption");

    FullRecord blanks;
    blanks.name = "Sys Power   ";
    EXPECT_EQ(parsed(blanks).name, "Sys Power");

    FullRecord odd;
    odd.name = "A\nB\x01"
               "C";
    EXPECT_EQ(parsed(odd).name, "A?B?C");

    // The type/length byte says 16 bytes but the record holds 4: the 4 are the name.
    FullRecord over;
    over.name = "Node";
    over.id_code = 0xC0 | 16;
    EXPECT_EQ(parsed(over).name, "Node");

    // 6-bit packed ASCII: "SYS PWR" is 7 characters in 6 bytes (8 characters, the last a blank).
    const std::string text = "SYS PWR ";
    std::string packed;
    for (std::size_t i = 0; i < text.size(); i += 4) {
        unsigned v = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            v |= static_cast<unsigned>(text[i + k] - 0x20) << (6 * k);
        }
        packed.push_back(static_cast<char>(lo(v)));
        packed.push_back(static_cast<char>(hi(v)));
        packed.push_back(static_cast<char>(lo(v >> 16U)));
    }
    FullRecord six;
    six.name = packed;
    six.id_code = 0x80 | static_cast<int>(packed.size());
    EXPECT_EQ(parsed(six).name, "SYS PWR");
}

} // namespace
} // namespace jp::sensors::ipmi
