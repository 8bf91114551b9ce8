// SPDX-License-Identifier: BSD-3-Clause
// An NVIDIA GPU read the default way: its energy counter on a thread of its own at the
// job's edges and every anchor (10 s), its power fields and utilisation on the fast thread
// at the interval (src/sensors/nvml/README.md). Against the stand-in library.
#include "config/config.hpp"
#include "sensors/nvml/nvml.hpp"
#include "stub_fixture.hpp"

#include <chrono>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace jp::sensors {
namespace {

using namespace std::chrono_literals;

Discovery discover(const std::string& fixture, const Config* config = nullptr) {
    Host h;
    h.nvml_library = JP_TEST_STUB_DIR "/libfake-nvidia-ml.so";
    h.config = config;
    test::StubTime origin;
    return test::discover_with(
        "JP_FAKE_NVML_FIXTURE", fixture, [&] { return nvml::discover(h); }, origin);
}

std::vector<std::string> names(const Sensor& s) {
    std::vector<std::string> out;
    for (const auto& c : s.channels()) {
        out.push_back(c.name);
    }
    return out;
}

constexpr const char* k_gpu = "gpu 0 00000000:3B:00.0 limit_mw=700000\npower 0 0 250\nutil 0 40\n";

TEST(NvmlAnchored, TheCounterIsReadAtAnchorsAndTheFieldsAtTheInterval) {
    auto d = discover(k_gpu);
    ASSERT_EQ(d.sensors.size(), 2U);
    const auto& counter = *d.sensors[0];
    const auto& fields = *d.sensors[1];
    EXPECT_EQ(names(counter), (std::vector<std::string>{"gpu0"}));
    EXPECT_EQ(names(fields), (std::vector<std::string>{"gpu0.power", "gpu0.instant", "gpu0.util"}));
    EXPECT_TRUE(counter.slow()) << "its 4 ms reads never delay the fast sensors";
    EXPECT_TRUE(counter.read_at_edges());
    EXPECT_EQ(counter.min_interval(), 10s);
    EXPECT_TRUE(counter.min_interval_reason().empty()) << "an anchor is not a floor to warn of";
    EXPECT_FALSE(fields.slow()) << "microsecond reads ride the fast thread";
    EXPECT_TRUE(fields.read_at_edges());
    EXPECT_EQ(fields.min_interval(), 100ms) << "the fields change every 100 ms";
    EXPECT_FALSE(fields.min_interval_reason().empty());

    const auto& energy = counter.channels()[0];
    EXPECT_EQ(energy.quantity, Quantity::energy);
    EXPECT_TRUE(energy.counted);
    EXPECT_EQ(energy.averaging_ns, std::optional<std::int64_t>{1'000'000'000})
        << "its power between anchors is the 1 s mean's";
    const auto& profile = fields.channels()[0];
    EXPECT_EQ(profile.quantity, Quantity::power);
    EXPECT_FALSE(profile.counted) << "the counter is the energy: never summed twice";
    EXPECT_EQ(profile.profile_of, "gpu0");
    EXPECT_EQ(profile.parent, "gpu0");
    EXPECT_EQ(profile.averaging_ns, std::optional<std::int64_t>{1'000'000'000});
    EXPECT_EQ(profile.device, energy.device);
    EXPECT_EQ(profile.limit_watts, std::optional{700.0});
    const auto& instant = fields.channels()[1];
    EXPECT_TRUE(instant.profile_of.empty());
    EXPECT_EQ(instant.parent, "gpu0");
    EXPECT_FALSE(instant.counted);
    EXPECT_FALSE(instant.averaging_ns);

    std::vector<Value> v(3);
    d.sensors[1]->read(v);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_NEAR(v[0].value, 250.0, 0.5);
    EXPECT_NEAR(v[1].value, 250.0, 0.5);
    EXPECT_EQ(v[2].value, 40.0);
    std::vector<Value> e(1);
    d.sensors[0]->read(e);
    EXPECT_EQ(e[0].status, ReadStatus::ok);
    EXPECT_GE(e[0].value, 0.0);
}

TEST(NvmlAnchored, AnchorAndIntervalAreConfigured) {
    Config config;
    config.nvml_anchor = 2s;
    config.intervals.emplace("nvml", 10ms);
    auto d = discover(k_gpu, &config);
    ASSERT_EQ(d.sensors.size(), 2U);
    EXPECT_EQ(d.sensors[0]->min_interval(), 2s);
    EXPECT_EQ(d.sensors[1]->min_interval(), 10ms) << "asked for: honoured";
    EXPECT_TRUE(d.sensors[1]->min_interval_reason().empty());

    config.nvml_anchor = 0s; // "off"
    auto off = discover(k_gpu, &config);
    ASSERT_EQ(off.sensors.size(), 1U);
    EXPECT_EQ(names(*off.sensors[0]), (std::vector<std::string>{"gpu0", "gpu0.util"}));
    EXPECT_EQ(off.sensors[0]->min_interval(), 10ms);
}

TEST(NvmlAnchored, EitherFieldAloneProfilesTheCounter) {
    auto usage = discover("gpu 0 00000000:3B:00.0 instant=no\npower 0 0 250\n");
    ASSERT_EQ(usage.sensors.size(), 2U);
    EXPECT_EQ(names(*usage.sensors[1]), (std::vector<std::string>{"gpu0.power"}));
    EXPECT_TRUE(usage.sensors[1]->channels()[0].averaging_ns);

    auto instant = discover("gpu 0 00000000:3B:00.0 usage=no\npower 0 0 250\n");
    ASSERT_EQ(instant.sensors.size(), 2U);
    const auto& profile = instant.sensors[1]->channels()[0];
    EXPECT_EQ(profile.name, "gpu0.power");
    EXPECT_EQ(profile.profile_of, "gpu0");
    EXPECT_FALSE(profile.averaging_ns) << "the instant field is no mean";
    EXPECT_FALSE(instant.sensors[0]->channels()[0].averaging_ns);
    std::vector<Value> v(1);
    instant.sensors[1]->read(v);
    EXPECT_NEAR(v[0].value, 250.0, 0.5);
}

TEST(NvmlAnchored, WithoutAFieldTheCounterIsReadAtTheIntervalAndThatIsAFinding) {
    auto d = discover("gpu 0 00000000:3B:00.0 instant=no usage=no\npower 0 0 250\n");
    ASSERT_EQ(d.sensors.size(), 1U);
    EXPECT_EQ(names(*d.sensors[0]), (std::vector<std::string>{"gpu0"}));
    EXPECT_EQ(d.sensors[0]->min_interval(), 100ms);
    ASSERT_EQ(d.unreadable.size(), 1U);
    EXPECT_EQ(d.unreadable[0].what, "NVIDIA GPU 0's power fields");
    EXPECT_EQ(d.unreadable[0].channel, "gpu0.power");
    EXPECT_NE(d.unreadable[0].reason.find("nvmlDeviceGetPowerUsage: NOT_SUPPORTED"),
              std::string::npos)
        << d.unreadable[0].reason;
}

TEST(NvmlAnchored, AGpuWithoutACounterIsReadAsBefore) {
    auto d = discover("gpu 0 00000000:3B:00.0 energy=no\npower 0 0 250\n");
    ASSERT_EQ(d.sensors.size(), 1U);
    EXPECT_EQ(d.sensors[0]->channels()[0].name, "gpu0");
    EXPECT_EQ(d.sensors[0]->channels()[0].quantity, Quantity::power);
    EXPECT_TRUE(d.unreadable.empty());
}

} // namespace
} // namespace jp::sensors
