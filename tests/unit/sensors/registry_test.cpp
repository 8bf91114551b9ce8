// SPDX-License-Identifier: BSD-3-Clause
#include "config/config.hpp"
#include "fake_sysfs.hpp"
#include "sensors/registry.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>

namespace jp::sensors {
namespace {

class FixedSensor final : public Sensor {
public:
    FixedSensor(std::string backend, std::vector<Channel> channels)
        : m_backend(std::move(backend)), m_channels(std::move(channels)) {
        for (auto& c : m_channels) {
            c.backend = m_backend;
        }
    }
    std::string_view backend() const noexcept override { return m_backend; }
    std::span<const Channel> channels() const noexcept override { return m_channels; }
    void read(std::span<Value> out) noexcept override {
        for (auto& v : out) {
            v = {1.0, ReadStatus::ok};
        }
    }

private:
    std::string m_backend;
    std::vector<Channel> m_channels;
};

Channel ch(std::string name, Domain d, std::string device = {}, Quantity q = Quantity::energy) {
    Channel c;
    c.name = std::move(name);
    c.domain = d;
    c.device = std::move(device);
    c.quantity = q;
    return c;
}

const Channel& by_name(const std::vector<Channel>& t, std::string_view name) {
    return *std::ranges::find(t, name, &Channel::name);
}

TEST(Registry, OneGpuSeenTwiceCountsOnce) {
    std::vector<std::unique_ptr<Sensor>> s;
    s.push_back(std::make_unique<FixedSensor>(
        "rocm_smi",
        std::vector{ch("gpu0", Domain::gpu, "pci:0000:03:00.0"),
                    ch("gpu0.util", Domain::gpu, "pci:0000:03:00.0", Quantity::utilization)}));
    s.push_back(std::make_unique<FixedSensor>(
        "hwmon",
        std::vector{
            ch("gpu.amdgpu.0000:03:00.0", Domain::gpu, "pci:0000:03:00.0", Quantity::power),
            ch("gpu.amdgpu.0000:04:00.0", Domain::gpu, "pci:0000:04:00.0", Quantity::power)}));
    const auto t = channel_table(s);
    EXPECT_TRUE(by_name(t, "gpu0").counted);
    EXPECT_FALSE(by_name(t, "gpu.amdgpu.0000:03:00.0").counted);
    EXPECT_EQ(by_name(t, "gpu.amdgpu.0000:03:00.0").parent, "gpu0");
    EXPECT_TRUE(by_name(t, "gpu.amdgpu.0000:04:00.0").counted) << "a different GPU";
}

TEST(Registry, AggregateWithoutDeviceDefersToPerSocketCounters) {
    std::vector<std::unique_ptr<Sensor>> s;
    s.push_back(std::make_unique<FixedSensor>(
        "powercap", std::vector{ch("cpu0.package", Domain::cpu_package, "rapl:package:0"),
                                ch("cpu1.package", Domain::cpu_package, "rapl:package:1")}));
    s.push_back(std::make_unique<FixedSensor>(
        "pm_counters", std::vector{ch("node", Domain::node), ch("cpu.pm", Domain::cpu_package),
                                   ch("memory.pm", Domain::dram)}));
    s.push_back(std::make_unique<FixedSensor>("hwmon", std::vector{ch("node", Domain::node)}));
    const auto t = channel_table(s);
    EXPECT_FALSE(by_name(t, "cpu.pm").counted);
    EXPECT_TRUE(by_name(t, "memory.pm").counted) << "no other DRAM measurement";
    EXPECT_TRUE(by_name(t, "node").counted);
    EXPECT_FALSE(by_name(t, "node#2").counted) << "a second node meter is not summed";
}

TEST(Registry, PerfAndPowercapViewsOfOnePackageCountOnce) {
    std::vector<std::unique_ptr<Sensor>> s;
    s.push_back(std::make_unique<FixedSensor>(
        "powercap", std::vector{ch("cpu0.package", Domain::cpu_package, "rapl:package:0")}));
    s.push_back(std::make_unique<FixedSensor>(
        "perf_rapl", std::vector{ch("cpu0.package", Domain::cpu_package, "rapl:package:0")}));
    const auto t = channel_table(s);
    EXPECT_TRUE(t[0].counted);
    EXPECT_FALSE(t[1].counted);
    EXPECT_EQ(t[1].name, "cpu0.package#2");
}

TEST(Registry, EstimateDroppedWhereMeasuredAndKeptElsewhere) {
    test::FakeSysfs fs;
    test::add_rapl_zone(fs, "intel-rapl:0", "package-0", 1000, 262143328850ULL, 0444);
    fs.add({"/proc/stat", "cpu  100 0 100 1000 0 0 0 0 0 0\ncpu0 100 0 100 1000 0 0 0 0 0 0\n"});
    fs.add({"/proc/meminfo", "MemTotal:       16384000 kB\n"});
    fs.add({"/proc/cpuinfo", "processor\t: 0\nmodel name\t: AMD EPYC\n\n"});
    auto d = discover_all(Host::with_root(fs.root()));
    const auto t = channel_table(d.sensors);
    EXPECT_TRUE(std::ranges::any_of(t, [](auto& c) { return c.name == "cpu0.package"; }));
    EXPECT_FALSE(std::ranges::any_of(t, [](auto& c) { return c.name == "cpu.estimate"; }));
    EXPECT_TRUE(std::ranges::any_of(t, [](auto& c) { return c.name == "dram.estimate"; }))
        << "no DRAM zone: DRAM stays estimated";
}

} // namespace
} // namespace jp::sensors

namespace jp::sensors {
namespace {

TEST(Registry, EveryBackendCanBeNamedInTheConfig) {
    for (const auto& b : backends()) {
        auto c = parse_config(fmt::format("[sensors.{}]\nenabled = false\n", b.name), "t.toml");
        ASSERT_TRUE(c) << b.name << ": " << c.error().message();
        EXPECT_TRUE(c->disabled.contains(b.name));
    }
}

} // namespace
} // namespace jp::sensors
