// SPDX-License-Identifier: BSD-3-Clause
// The estimate backend: share of a socket, DRAM from meminfo, and what happens when
// /proc is missing or malformed.
#include "config/config.hpp"
#include "fake_node.hpp"
#include "sensors/estimate/estimate.hpp"

#include <gtest/gtest.h>

namespace jp::sensors {
namespace {

using test::any_note;
using test::FakeNode;
using test::find_sensor;
using test::read_one;
using test::sensor_of;

// Per-CPU topology files, as under /sys/devices/system/cpu/cpuN/topology/.
void add_topology(test::FakeSysfs& fs, int cpus, int sockets) {
    for (int i = 0; i < cpus; ++i) {
        fs.add({fmt::format("/sys/devices/system/cpu/cpu{}/topology/physical_package_id", i),
                fmt::format("{}\n", i % sockets)});
    }
    fs.add({"/sys/devices/system/cpu/cpufreq/boost", "1\n"}); // not a cpuN directory
}

double limit_of(Discovery& d) {
    return sensor_of(d, "cpu.estimate").channels()[0].limit_watts.value_or(-1);
}

TEST(Estimate, VmShareIsItsVisibleThreadsOfASocket) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    EXPECT_NEAR(limit_of(d), 280.0 * (2.0 / 128.0), 1e-9); // 4.375 W
    const auto& source = sensor_of(d, "cpu.estimate").channels()[0].source;
    EXPECT_TRUE(source.contains("VM sees 2 of 128 threads/socket")) << source;
}

TEST(Estimate, VmShareIsCappedAtItsSockets) {
    // A (mis)configured model with fewer threads than the VM shows: never more than
    // one full socket per socket the VM has.
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 200, true, 1};
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    EXPECT_NEAR(limit_of(d), 280.0, 1e-9);
}

TEST(Estimate, BareMetalCountsWholeSocketsEvenWithSmtOff) {
    // HoreKa-like node: 2 × Platinum 8368, SMT off, so 76 of 152 threads online.
    FakeNode node{"Intel(R) Xeon(R) Platinum 8368 CPU @ 2.40GHz", 76, false, 2};
    add_topology(node.fs, 76, 2);
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    EXPECT_NEAR(limit_of(d), 2 * 270.0, 1e-9);
}

TEST(Estimate, SocketsComeFromSysfsTopologyWhenCpuinfoHasNone) {
    // arm64 prints no "physical id": 2 Grace CPUs of a Superchip, named through the config.
    FakeNode node{"", 144, false};
    node.fs.add({"/proc/cpuinfo", "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd4f\n"});
    add_topology(node.fs, 144, 2);
    Config cfg;
    cfg.node.cpu_model = "NVIDIA Grace";
    auto host = Host::with_root(node.fs.root());
    host.config = &cfg;
    auto d = estimate::discover(host);
    EXPECT_NEAR(limit_of(d), 2 * 250.0, 1e-9);
}

TEST(Estimate, ArmCoreIsNamedFromItsPartId) {
    FakeNode node{"", 4, false};
    node.fs.add({"/proc/cpuinfo",
                 "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n"
                 "\nprocessor\t: 1\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n"});
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    const auto& source = sensor_of(d, "cpu.estimate").channels()[0].source;
    EXPECT_TRUE(source.contains("generic (no table row matches 'Arm Neoverse-N1')")) << source;
}

TEST(Estimate, DramFromMemTotal) {
    FakeNode node{"AMD EPYC", 2, true};
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    auto& dram = sensor_of(d, "dram.estimate");
    const auto& c = dram.channels()[0];
    EXPECT_EQ(c.domain, Domain::dram);
    EXPECT_EQ(c.quantity, Quantity::power);
    EXPECT_EQ(c.provenance, Provenance::estimated);
    EXPECT_EQ(c.backend, "estimate");
    EXPECT_TRUE(c.source.contains("16.0 GiB")) << c.source;
    const auto v = read_one(dram);
    EXPECT_EQ(v.status, ReadStatus::ok);
    EXPECT_NEAR(v.value, 16 * 0.375, 1e-9); // 16777216 kB = 16 GiB at 3 W per 8 GiB
    EXPECT_NEAR(read_one(dram).value, 6.0, 1e-9) << "constant";
}

TEST(Estimate, DramRateFromConfig) {
    FakeNode node{"AMD EPYC", 2, true};
    node.fs.add({"/proc/meminfo", "MemTotal:       1056964608 kB\n"}); // 1008 GiB
    Config cfg;
    cfg.node.dram_watts_per_gib = 0.25;
    auto host = Host::with_root(node.fs.root());
    host.config = &cfg;
    auto d = estimate::discover(host);
    auto& dram = sensor_of(d, "dram.estimate");
    EXPECT_TRUE(dram.channels()[0].source.contains("0.25 W/GiB (config)"));
    EXPECT_NEAR(read_one(dram).value, 1008 * 0.25, 1e-9);
}

TEST(Estimate, MalformedStatAtReadIsRetry) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    auto& cpu = sensor_of(d, "cpu.estimate");
    for (const char* bad :
         {"cpu  12x4 0 0 0\n", "cpu  1 2 3\n", "cpu  1 2 3 4", "intr 5\n", "\n", ""}) {
        node.fs.add({"/proc/stat", bad, 0644});
        EXPECT_EQ(read_one(cpu).status, ReadStatus::retry) << "content: '" << bad << "'";
    }
    node.advance({.user = 1, .idle = 1}); // a valid file again
    EXPECT_EQ(read_one(cpu).status, ReadStatus::ok);
}

TEST(Estimate, CountersGoingBackAreRetryThenRecover) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    auto& cpu = sensor_of(d, "cpu.estimate");
    node.set_stat({.user = 10, .idle = 10}); // far below the discovery snapshot
    EXPECT_EQ(read_one(cpu).status, ReadStatus::retry);
    node.set_stat({.user = 60, .idle = 60}); // from the new baseline: 50 of 100 busy
    const auto v = read_one(cpu);
    EXPECT_EQ(v.status, ReadStatus::ok);
    EXPECT_NEAR(v.value, 280.0 * 2.0 / 128.0 * (0.3 + 0.7 * 0.5), 1e-9);
}

TEST(Estimate, MissingProcStatMeansNoCpuSensorAndANote) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    node.fs.remove("/proc/stat");
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    EXPECT_EQ(find_sensor(d, "cpu.estimate"), nullptr);
    EXPECT_NE(find_sensor(d, "dram.estimate"), nullptr) << "DRAM does not need /proc/stat";
    EXPECT_TRUE(any_note(d, "no CPU estimate"));
}

TEST(Estimate, MalformedProcStatAtDiscoveryMeansNoCpuSensor) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    node.fs.add({"/proc/stat", "intr 1 2 3\n", 0644});
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    EXPECT_EQ(find_sensor(d, "cpu.estimate"), nullptr);
    EXPECT_TRUE(any_note(d, "no CPU estimate"));
}

TEST(Estimate, MissingMeminfoMeansNoDramSensorAndANote) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    node.fs.remove("/proc/meminfo");
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    EXPECT_NE(find_sensor(d, "cpu.estimate"), nullptr);
    EXPECT_EQ(find_sensor(d, "dram.estimate"), nullptr);
    EXPECT_TRUE(any_note(d, "no DRAM estimate"));
}

TEST(Estimate, MissingCpuinfoUsesTheGenericFigure) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    node.fs.remove("/proc/cpuinfo");
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    auto& cpu = sensor_of(d, "cpu.estimate");
    EXPECT_TRUE(cpu.channels()[0].source.contains("generic"));
    EXPECT_TRUE(any_note(d, "CPU model unknown"));
    EXPECT_NEAR(*cpu.channels()[0].limit_watts, 2 * 6.0, 1e-9) << "2 cpuN lines in /proc/stat";
}

TEST(Estimate, EmptyTreeMeansNoSensorsAndNotes) {
    test::FakeSysfs fs;
    auto d = estimate::discover(Host::with_root(fs.root()));
    EXPECT_TRUE(d.sensors.empty());
    EXPECT_TRUE(any_note(d, "no CPU estimate"));
    EXPECT_TRUE(any_note(d, "no DRAM estimate"));
    EXPECT_FALSE(any_note(d, "not measured")) << "nothing was estimated";
}

} // namespace
} // namespace jp::sensors
