// SPDX-License-Identifier: BSD-3-Clause
// ROCm SMI through the real dlopen path, against the stand-in librocm-fake.so and its
// scripted power profile (known ground truth).
#include "../nvml/stub_fixture.hpp"
#include "sensors/rocm_smi/device.hpp"
#include "sensors/rocm_smi/rocm_smi.hpp"
#include "sys/dynamic_library.hpp"

#include <chrono>
#include <gtest/gtest.h>
#include <thread>

namespace jp::sensors {
namespace {

using namespace std::chrono_literals;
using test::StubTime;

constexpr const char* k_stub = JP_TEST_STUB_DIR "/librocm-fake.so";
constexpr const char* k_env = "JP_FAKE_ROCM_FIXTURE";

// Power ramps from 100 W at 0 s to 300 W at 0.2 s, then stays.
constexpr const char* k_ramp = "power 0 0 100\npower 0 0.2 300\n";
double ramp_joules(double t) {
    return t < 0.2 ? 100 * t + 500 * t * t : 40 + 300 * (t - 0.2);
}

Discovery discover(const std::string& fixture, StubTime& origin, const char* library = k_stub) {
    Host h;
    h.rocm_library = library;
    return test::discover_with(
        k_env, fixture, [&] { return rocm_smi::discover(h); }, origin);
}

Discovery discover(const std::string& fixture, const char* library = k_stub) {
    StubTime origin;
    return discover(fixture, origin, library);
}

using test::has_note;

TEST(RocmSmi, LibraryAbsentLeavesANote) {
    auto d = discover("", "/nonexistent/librocm_smi64.so");
    EXPECT_TRUE(d.sensors.empty());
    ASSERT_EQ(d.notes.size(), 1U);
    EXPECT_TRUE(d.notes[0].starts_with("rocm_smi: /nonexistent/librocm_smi64.so not found: no "
                                       "AMD GPUs measured through ROCm SMI"))
        << d.notes[0];
}

TEST(RocmSmi, MissingRequiredSymbolLeavesANote) {
    auto d = discover("gpu 0 bdfid=0x300\n", JP_TEST_STUB_DIR "/librocm-fake-nocount.so");
    EXPECT_TRUE(d.sensors.empty());
    EXPECT_TRUE(has_note(d, "symbol rsmi_num_monitor_devices missing"));
}

TEST(RocmSmi, InitErrorLeavesANote) {
    auto d = discover("init_error 8\ngpu 0\n");
    EXPECT_TRUE(d.sensors.empty());
    EXPECT_TRUE(has_note(d, "rsmi_init failed: INIT_ERROR (8)"));
}

TEST(RocmSmi, ChannelsOfOneGpu) {
    auto d = discover("gpu 0 bdfid=0x300 cap_uw=560000000 name=AMD Instinct MI250X\n"
                      "power 0 0 100\nutil 0 55\n");
    ASSERT_EQ(d.sensors.size(), 1U);
    test::expect_energy_and_util(*d.sensors[0], {.backend = "rocm_smi",
                                                 .source = "rocm_smi:0 AMD Instinct MI250X",
                                                 .device = "pci:0000:03:00.0",
                                                 .limit_watts = 560.0,
                                                 .util = 55.0});
}

TEST(RocmSmi, EnergyCounterUsesItsResolution) {
    StubTime origin;
    auto d = discover(std::string{"gpu 0 bdfid=0x300 resolution=15.3\n"} + k_ramp, origin);
    ASSERT_EQ(d.sensors.size(), 1U);
    auto& s = *d.sensors[0];
    ASSERT_EQ(s.channels()[0].quantity, Quantity::energy);
    const double count_j = 15.3e-6; // one count of the raw counter
    for (int i = 0; i < 2; ++i) {
        std::this_thread::sleep_for(120ms);
        StubTime when;
        auto v = test::read_timed(s, origin, when);
        ASSERT_EQ(v[0].status, ReadStatus::ok);
        EXPECT_GE(v[0].value, ramp_joules(when.lo) - count_j);
        EXPECT_LE(v[0].value, ramp_joules(when.hi) + 1e-9);
    }
}

TEST(RocmSmi, WithoutEnergyCounterUsesPower) {
    auto d = discover("gpu 0 bdfid=0x300 energy=no\npower 0 0 250\n");
    ASSERT_EQ(d.sensors.size(), 1U);
    EXPECT_EQ(d.sensors[0]->channels()[0].quantity, Quantity::power);
    EXPECT_TRUE(has_note(d, "rsmi_dev_energy_count_get: NOT_SUPPORTED (2); power from "
                            "rsmi_dev_power_get (current socket power)"));
    EXPECT_TRUE(test::reads_ok(test::read_once(*d.sensors[0])[0], 250.0));
}

TEST(RocmSmi, FallsBackToAveragePower) {
    auto d = discover("gpu 0 bdfid=0x300 energy=no power=no\npower 0 0 180.5\n");
    ASSERT_EQ(d.sensors.size(), 1U);
    EXPECT_TRUE(has_note(d, "power from rsmi_dev_power_ave_get"));
    EXPECT_TRUE(test::reads_ok(test::read_once(*d.sensors[0])[0], 180.5));
}

TEST(RocmSmi, NoPowerReadingIsAFinding) {
    auto d = discover("gpu 0 bdfid=0x300 energy=no power=no ave=no\n");
    EXPECT_TRUE(d.sensors.empty()) << "no power and no utilisation: nothing to read";
    ASSERT_EQ(d.unreadable.size(), 1U);
    EXPECT_NE(d.unreadable[0].reason.find("rsmi_dev_power_ave_get: NOT_SUPPORTED"),
              std::string::npos);
}

TEST(RocmSmi, LostDeviceIsGoneAndStaysGoneWhileBusyRecovers) {
    // Both fail from 0.1 s to 0.25 s: gpu0's files vanish (NOT_SUPPORTED), gpu1 is BUSY.
    auto d = discover("gpu 0 bdfid=0x300\npower 0 0 100\nutil 0 50\n"
                      "gpu 1 bdfid=0x400\npower 1 0 100\n"
                      "lost 0 0.1 until=0.25\nlost 1 0.1 until=0.25 code=16\n");
    ASSERT_EQ(d.sensors.size(), 2U);
    test::expect_gone_sticks_while_retry_recovers(*d.sensors[0], *d.sensors[1],
                                                  "device indices may have moved: stays gone");
}

TEST(RocmSmi, DecodesBdfid) {
    EXPECT_EQ(rocm_smi::format_bdfid(0x300), "0000:03:00.0");
    EXPECT_EQ(rocm_smi::format_bdfid((1ULL << 32) | (0xc1U << 8) | (0x1fU << 3) | 7U),
              "0001:c1:1f.7");
    EXPECT_EQ(rocm_smi::format_bdfid((0x3ULL << 28) | 0x300), "0000:03:00.0")
        << "partition id bits are not part of the PCI address";
    auto d = discover("gpu 0 bdfid=0x0000000100004308\n");
    ASSERT_EQ(d.sensors.size(), 1U);
    EXPECT_EQ(d.sensors[0]->channels()[0].device, "pci:0001:43:01.0");
}

TEST(RocmSmi, ShutsDownWhenTheLastGpuSensorGoes) {
    auto stub = sys::DynamicLibrary::open({k_stub}); // shares the stub's state with discover
    ASSERT_TRUE(stub);
    auto d = discover("gpu 0 bdfid=0x300\ngpu 1 bdfid=0x400\n");
    test::expect_one_session_until_the_last_sensor_goes(d, *stub, "jp_fake_rocm_sessions");
}

} // namespace
} // namespace jp::sensors
