// SPDX-License-Identifier: BSD-3-Clause
// NVML discovery through the real dlopen path, against the stand-in libfake-nvidia-ml.so.
#include "anchors_off.hpp"
#include "sensors/nvml/device.hpp"
#include "sensors/nvml/nvml.hpp"
#include "stub_fixture.hpp"
#include "sys/dynamic_library.hpp"

#include <gtest/gtest.h>

namespace jp::sensors {
namespace {

constexpr const char* k_stub = JP_TEST_STUB_DIR "/libfake-nvidia-ml.so";
constexpr const char* k_env = "JP_FAKE_NVML_FIXTURE";

Discovery discover(const std::string& fixture, const char* library = k_stub) {
    Host h;
    h.nvml_library = library;
    h.config = &test::k_anchors_off;
    test::StubTime origin;
    return test::discover_with(
        k_env, fixture, [&] { return nvml::discover(h); }, origin);
}

using test::has_note;

// The stub's count of nvmlInit_v2 calls not yet matched by nvmlShutdown.
constexpr const char* k_sessions_hook = "jp_fake_nvml_sessions";

TEST(Nvml, LibraryAbsentLeavesANote) {
    auto d = discover("", "/nonexistent/libnvidia-ml.so.1");
    EXPECT_TRUE(d.sensors.empty());
    ASSERT_EQ(d.notes.size(), 1U);
    EXPECT_TRUE(d.notes[0].starts_with(
        "nvml: /nonexistent/libnvidia-ml.so.1 not found: no NVIDIA GPUs measured"))
        << d.notes[0];
}

TEST(Nvml, MissingRequiredSymbolLeavesANote) {
    auto d = discover("gpu 0 00000000:3B:00.0\n", JP_TEST_STUB_DIR "/libfake-nvidia-ml-nocount.so");
    EXPECT_TRUE(d.sensors.empty());
    EXPECT_TRUE(has_note(d, "symbol nvmlDeviceGetCount_v2 missing"));
}

TEST(Nvml, InitErrorLeavesANote) {
    auto d = discover("init_error 9\ngpu 0 00000000:3B:00.0\n");
    EXPECT_TRUE(d.sensors.empty());
    EXPECT_TRUE(has_note(d, "nvmlInit_v2 failed: DRIVER_NOT_LOADED (9)"));
}

TEST(Nvml, ChannelsOfOneGpu) {
    auto d = discover("gpu 0 00000000:3B:00.0 limit_mw=700000 name=NVIDIA H100 80GB HBM3\n"
                      "power 0 0 100\nutil 0 37\n");
    ASSERT_EQ(d.sensors.size(), 1U);
    test::expect_energy_and_util(*d.sensors[0], {.backend = "nvml",
                                                 .source = "nvml:0 NVIDIA H100 80GB HBM3",
                                                 .device = "pci:0000:3b:00.0",
                                                 .limit_watts = 700.0,
                                                 .util = 37.0});
}

TEST(Nvml, IsReadOnItsOwnThreadNoFasterThanItChangesUnlessAsked) {
    // An H100's counter changes every 100 ms and each read costs ~4 ms of CPU.
    auto d = discover("gpu 0 00000000:3B:00.0\npower 0 0 100\n");
    ASSERT_EQ(d.sensors.size(), 1U);
    const auto& s = *d.sensors[0];
    EXPECT_TRUE(s.slow()) << "a milliseconds-long read never delays the fast sensors";
    EXPECT_TRUE(s.read_at_edges()) << "the counter still brackets the job exactly";
    EXPECT_EQ(s.min_interval(), std::chrono::milliseconds{100});
    EXPECT_THAT(std::string{s.min_interval_reason()},
                testing::HasSubstr("set [sensors.nvml] interval"));

    Config config = test::k_anchors_off;
    config.intervals.emplace("nvml", std::chrono::milliseconds{10});
    Host h;
    h.nvml_library = k_stub;
    h.config = &config;
    test::StubTime origin;
    auto asked = test::discover_with(
        k_env, "gpu 0 00000000:3B:00.0\npower 0 0 100\n", [&] { return nvml::discover(h); },
        origin);
    ASSERT_EQ(asked.sensors.size(), 1U);
    EXPECT_EQ(asked.sensors[0]->min_interval(), std::chrono::milliseconds{10}) << "honoured";
    EXPECT_TRUE(asked.sensors[0]->min_interval_reason().empty());
}

TEST(Nvml, NoLimitAndNoUtilizationAreOptional) {
    auto d = discover("gpu 0 00000000:3B:00.0\npower 0 0 100\n");
    ASSERT_EQ(d.sensors.size(), 1U);
    auto ch = d.sensors[0]->channels();
    ASSERT_EQ(ch.size(), 1U);
    EXPECT_FALSE(ch[0].limit_watts);
    EXPECT_TRUE(has_note(d, "gpu0: no utilization: nvmlDeviceGetUtilizationRates: NOT_SUPPORTED"));
}

TEST(Nvml, NormalizesPciBusIds) {
    auto d = discover("gpu 0 00000000:3B:00.0\ngpu 1 00010000:C1:1F.0\n");
    ASSERT_EQ(d.sensors.size(), 2U);
    EXPECT_EQ(d.sensors[0]->channels()[0].device, "pci:0000:3b:00.0");
    EXPECT_EQ(d.sensors[1]->channels()[0].device, "pci:10000:c1:1f.0");
    EXPECT_EQ(d.sensors[1]->channels()[0].name, "gpu1");
    EXPECT_EQ(nvml::normalize_bus_id("0000:3B:00.0"), "0000:3b:00.0"); // legacy busIdLegacy
    EXPECT_EQ(nvml::normalize_bus_id("00000000:AF:00.0"), "0000:af:00.0");
    EXPECT_FALSE(nvml::normalize_bus_id(""));
    EXPECT_FALSE(nvml::normalize_bus_id("00000000:3B"));
    EXPECT_FALSE(nvml::normalize_bus_id("0000:3g:00.0"));
    EXPECT_FALSE(nvml::normalize_bus_id("0000:3b:20.0")) << "device numbers stop at 0x1f";
}

TEST(Nvml, ShutsDownWhenTheLastGpuSensorGoes) {
    auto stub = sys::DynamicLibrary::open({k_stub}); // shares the stub's state with discover
    ASSERT_TRUE(stub);
    auto d = discover("gpu 0 00000000:3B:00.0\ngpu 1 00000000:5E:00.0\n");
    test::expect_one_session_until_the_last_sensor_goes(d, *stub, k_sessions_hook);
}

TEST(Nvml, NoGpusShutsDownAtOnce) {
    auto stub = sys::DynamicLibrary::open({k_stub});
    ASSERT_TRUE(stub);
    auto d = discover("# no GPUs\n");
    EXPECT_TRUE(d.sensors.empty());
    EXPECT_TRUE(has_note(d, "no NVIDIA GPUs"));
    EXPECT_EQ(test::stub_sessions(*stub, k_sessions_hook), 0);
}

} // namespace
} // namespace jp::sensors
