// SPDX-License-Identifier: BSD-3-Clause
// NVML readings against the stand-in library's scripted power profile (known ground truth).
#include "anchors_off.hpp"
#include "sensors/nvml/nvml.hpp"
#include "stub_fixture.hpp"

#include <chrono>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <thread>

namespace jp::sensors {
namespace {

using namespace std::chrono_literals;
using test::StubTime;

constexpr const char* k_env = "JP_FAKE_NVML_FIXTURE";

// Power ramps from 100 W at 0 s to 300 W at 0.2 s, then stays.
constexpr const char* k_ramp = "power 0 0 100\npower 0 0.2 300\n";
double ramp_watts(double t) {
    return t < 0.2 ? 100 + 1000 * t : 300;
}
double ramp_joules(double t) {
    return t < 0.2 ? 100 * t + 500 * t * t : 40 + 300 * (t - 0.2);
}

Discovery discover(const std::string& fixture, StubTime& origin) {
    Host h;
    h.nvml_library = JP_TEST_STUB_DIR "/libfake-nvidia-ml.so";
    h.config = &test::k_anchors_off;
    return test::discover_with(
        k_env, fixture, [&] { return nvml::discover(h); }, origin);
}

Discovery discover(const std::string& fixture) {
    StubTime origin;
    return discover(fixture, origin);
}

using test::has_note;

TEST(Nvml, EnergyCounterIsTheIntegralOfThePowerProfile) {
    StubTime origin;
    auto d =
        discover(std::string{"gpu 0 00000000:3B:00.0 energy_offset_mj=5000000\n"} + k_ramp, origin);
    ASSERT_EQ(d.sensors.size(), 1U);
    auto& s = *d.sensors[0];
    ASSERT_EQ(s.channels()[0].quantity, Quantity::energy);
    for (int i = 0; i < 2; ++i) {
        std::this_thread::sleep_for(120ms);
        StubTime when;
        auto v = test::read_timed(s, origin, when);
        ASSERT_EQ(v[0].status, ReadStatus::ok);
        // Raw counter in J (mJ since driver load, floored by NVML to whole mJ).
        EXPECT_GE(v[0].value, 5000.0 + ramp_joules(when.lo) - 1e-3);
        EXPECT_LE(v[0].value, 5000.0 + ramp_joules(when.hi));
    }
}

TEST(Nvml, WithoutEnergyCounterUsesInstantPowerField) {
    StubTime origin;
    auto d = discover(std::string{"gpu 0 00000000:3B:00.0 energy=no\n"} + k_ramp, origin);
    ASSERT_EQ(d.sensors.size(), 1U);
    auto& s = *d.sensors[0];
    EXPECT_EQ(s.channels()[0].quantity, Quantity::power);
    EXPECT_TRUE(has_note(d, "nvmlDeviceGetTotalEnergyConsumption: NOT_SUPPORTED (3); power from "
                            "NVML_FI_DEV_POWER_INSTANT"));
    // What the H200 showed (docs/gpu-check.md): the field is part-time, and the note says so.
    EXPECT_TRUE(has_note(d, "averages about 25-35 ms of each 100 ms"));
    std::this_thread::sleep_for(100ms);
    StubTime when;
    auto v = test::read_timed(s, origin, when);
    ASSERT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_GE(v[0].value, ramp_watts(when.lo) - 1e-3); // mW resolution
    EXPECT_LE(v[0].value, ramp_watts(when.hi) + 1e-3);
}

TEST(Nvml, InstantPowerFieldOfEveryValueType) {
    for (int type = 0; type <= 6; ++type) {
        auto d = discover("gpu 0 00000000:3B:00.0 energy=no instant_type=" + std::to_string(type) +
                          "\npower 0 0 42.5\n");
        ASSERT_EQ(d.sensors.size(), 1U);
        EXPECT_TRUE(test::reads_ok(test::read_once(*d.sensors[0])[0], 42.5))
            << "valueType " << type;
    }
}

TEST(Nvml, WithoutInstantFieldUsesPowerUsage) {
    auto d = discover("gpu 0 00000000:3B:00.0 energy=no instant=no\npower 0 0 250\n");
    ASSERT_EQ(d.sensors.size(), 1U);
    EXPECT_EQ(d.sensors[0]->channels()[0].quantity, Quantity::power);
    EXPECT_TRUE(has_note(d, "NVML_FI_DEV_POWER_INSTANT: NOT_SUPPORTED (3); power from "
                            "nvmlDeviceGetPowerUsage"));
    EXPECT_TRUE(has_note(d, "1 s average"));
    EXPECT_TRUE(test::reads_ok(test::read_once(*d.sensors[0])[0], 250.0));
}

TEST(Nvml, NoPowerReadingIsAFinding) {
    auto d = discover("gpu 0 00000000:3B:00.0 energy=no instant=no usage=no\nutil 0 5\n");
    ASSERT_EQ(d.unreadable.size(), 1U);
    EXPECT_NE(d.unreadable[0].reason.find("nvmlDeviceGetPowerUsage: NOT_SUPPORTED"),
              std::string::npos);
    ASSERT_EQ(d.sensors.size(), 1U) << "utilisation is still worth having";
    ASSERT_EQ(d.sensors[0]->channels().size(), 1U);
    EXPECT_EQ(d.sensors[0]->channels()[0].name, "gpu0.util");
}

TEST(Nvml, LostGpuIsGoneAndStaysGoneWhileTimeoutsRecover) {
    // Both GPUs fail from 0.1 s to 0.25 s: gpu0 is lost (GPU_IS_LOST), gpu1 times out.
    auto d = discover("gpu 0 00000000:3B:00.0\npower 0 0 100\nutil 0 50\n"
                      "gpu 1 00000000:5E:00.0\npower 1 0 100\n"
                      "lost 0 0.1 until=0.25 code=15\nlost 1 0.1 until=0.25 code=10\n");
    ASSERT_EQ(d.sensors.size(), 2U);
    test::expect_gone_sticks_while_retry_recovers(*d.sensors[0], *d.sensors[1],
                                                  "a lost GPU's handle is stale: stays gone");
}

TEST(Nvml, ReturnCodesMapToReadStatus) {
    const std::vector<std::pair<int, ReadStatus>> cases{
        {15, ReadStatus::gone},  {28, ReadStatus::gone},  {6, ReadStatus::gone},
        {10, ReadStatus::retry}, {21, ReadStatus::retry}, {27, ReadStatus::retry},
        {19, ReadStatus::retry}, {4, ReadStatus::fatal},  {999, ReadStatus::fatal}};
    std::string fixture;
    for (std::size_t i = 0; i < cases.size(); ++i) { // one GPU per return code
        fixture += fmt::format("gpu {0} 00000000:{0:02X}:00.0\npower {0} 0 100\n"
                               "lost {0} 0.1 code={1}\n",
                               i, cases[i].first);
    }
    auto d = discover(fixture);
    ASSERT_EQ(d.sensors.size(), cases.size());
    std::this_thread::sleep_for(150ms);
    for (std::size_t i = 0; i < cases.size(); ++i) {
        EXPECT_EQ(test::read_once(*d.sensors[i])[0].status, cases[i].second)
            << "nvmlReturn_t " << cases[i].first;
    }
}

} // namespace
} // namespace jp::sensors
