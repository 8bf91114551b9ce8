// NVML discovery through the real dlopen path, against the stand-in libfake-nvidia-ml.so.
#include "sensors/nvml/device.hpp"
#include "sensors/nvml/nvml.hpp"
#include "stub_fixture.hpp"
#include "sys/dynamic_library.hpp"

#include <algorithm>
#include <gtest/gtest.h>

namespace jp::sensors {
namespace {

using test::StubFixture;

constexpr const char* k_stub = JP_TEST_STUB_DIR "/libfake-nvidia-ml.so";
constexpr const char* k_env = "JP_FAKE_NVML_FIXTURE";

Host stub_host(const char* library = k_stub) {
    Host h;
    h.nvml_library = library;
    return h;
}

bool has_note(const Discovery& d, std::string_view text) {
    return std::ranges::any_of(d.notes, [&](const auto& n) { return n.find(text) != n.npos; });
}

// The stub's count of nvmlInit_v2 calls not yet matched by nvmlShutdown.
int stub_sessions(const sys::DynamicLibrary& stub) {
    return (*stub.symbol<int (*)()>("jp_fake_nvml_sessions"))();
}

TEST(Nvml, LibraryAbsentLeavesANote) {
    auto d = nvml::discover(stub_host("/nonexistent/libnvidia-ml.so.1"));
    EXPECT_TRUE(d.sensors.empty());
    ASSERT_EQ(d.notes.size(), 1U);
    EXPECT_TRUE(d.notes[0].starts_with(
        "nvml: /nonexistent/libnvidia-ml.so.1 not found: no NVIDIA GPUs measured"))
        << d.notes[0];
}

TEST(Nvml, MissingRequiredSymbolLeavesANote) {
    StubFixture fx{k_env, "gpu 0 00000000:3B:00.0\n"};
    auto d = nvml::discover(stub_host(JP_TEST_STUB_DIR "/libfake-nvidia-ml-nocount.so"));
    EXPECT_TRUE(d.sensors.empty());
    EXPECT_TRUE(has_note(d, "symbol nvmlDeviceGetCount_v2 missing"))
        << ::testing::PrintToString(d.notes);
}

TEST(Nvml, InitErrorLeavesANote) {
    StubFixture fx{k_env, "init_error 9\ngpu 0 00000000:3B:00.0\n"};
    auto d = nvml::discover(stub_host());
    EXPECT_TRUE(d.sensors.empty());
    EXPECT_TRUE(has_note(d, "nvmlInit_v2 failed: DRIVER_NOT_LOADED (9)"))
        << ::testing::PrintToString(d.notes);
}

TEST(Nvml, ChannelsOfOneGpu) {
    StubFixture fx{k_env, "gpu 0 00000000:3B:00.0 limit_mw=700000 name=NVIDIA H100 80GB HBM3\n"
                          "power 0 0 100\nutil 0 37\n"};
    auto d = nvml::discover(stub_host());
    ASSERT_EQ(d.sensors.size(), 1U);
    auto ch = d.sensors[0]->channels();
    ASSERT_EQ(ch.size(), 2U);
    EXPECT_EQ(ch[0].name, "gpu0");
    EXPECT_EQ(ch[0].domain, Domain::gpu);
    EXPECT_EQ(ch[0].quantity, Quantity::energy);
    EXPECT_EQ(ch[0].provenance, Provenance::measured);
    EXPECT_EQ(ch[0].backend, "nvml");
    EXPECT_EQ(ch[0].source, "nvml:0 NVIDIA H100 80GB HBM3");
    EXPECT_EQ(ch[0].device, "pci:0000:3b:00.0");
    EXPECT_FALSE(ch[0].wrap_joules) << "a 64-bit mJ counter does not wrap";
    EXPECT_DOUBLE_EQ(ch[0].limit_watts.value_or(0), 700.0);
    EXPECT_TRUE(ch[0].counted);
    EXPECT_EQ(ch[1].name, "gpu0.util");
    EXPECT_EQ(ch[1].quantity, Quantity::utilization);
    EXPECT_EQ(ch[1].domain, Domain::gpu);
    EXPECT_FALSE(ch[1].counted);
    EXPECT_EQ(ch[1].device, ch[0].device);
    std::vector<Value> v(ch.size());
    d.sensors[0]->read(v);
    EXPECT_EQ(v[1].status, ReadStatus::ok);
    EXPECT_DOUBLE_EQ(v[1].value, 37.0);
}

TEST(Nvml, NoLimitAndNoUtilizationAreOptional) {
    StubFixture fx{k_env, "gpu 0 00000000:3B:00.0\npower 0 0 100\n"};
    auto d = nvml::discover(stub_host());
    ASSERT_EQ(d.sensors.size(), 1U);
    auto ch = d.sensors[0]->channels();
    ASSERT_EQ(ch.size(), 1U);
    EXPECT_FALSE(ch[0].limit_watts);
    EXPECT_TRUE(has_note(d, "gpu0: no utilization: nvmlDeviceGetUtilizationRates: NOT_SUPPORTED"));
}

TEST(Nvml, NormalizesPciBusIds) {
    StubFixture fx{k_env, "gpu 0 00000000:3B:00.0\ngpu 1 00010000:C1:1F.0\n"};
    auto d = nvml::discover(stub_host());
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
    StubFixture fx{k_env, "gpu 0 00000000:3B:00.0\ngpu 1 00000000:5E:00.0\n"};
    auto d = nvml::discover(stub_host());
    ASSERT_EQ(d.sensors.size(), 2U);
    EXPECT_EQ(stub_sessions(*stub), 1) << "one NVML session shared by every GPU";
    d.sensors.erase(d.sensors.begin());
    EXPECT_EQ(stub_sessions(*stub), 1);
    d.sensors.clear();
    EXPECT_EQ(stub_sessions(*stub), 0);
}

TEST(Nvml, NoGpusShutsDownAtOnce) {
    auto stub = sys::DynamicLibrary::open({k_stub});
    ASSERT_TRUE(stub);
    StubFixture fx{k_env, "# no GPUs\n"};
    auto d = nvml::discover(stub_host());
    EXPECT_TRUE(d.sensors.empty());
    EXPECT_TRUE(has_note(d, "no NVIDIA GPUs"));
    EXPECT_EQ(stub_sessions(*stub), 0);
}

} // namespace
} // namespace jp::sensors
