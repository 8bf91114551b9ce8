// SPDX-License-Identifier: BSD-3-Clause
// tools/capture-sysfs copies a node's sensor files into a fixture tree on which
// discovery finds the same channels as on the node itself.
#include "fake_sysfs.hpp"
#include "sensors/registry.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <gtest/gtest.h>

namespace jp::sensors {
namespace {

std::vector<std::pair<std::string, std::string>> names_and_devices(const Host& host) {
    auto d = discover_all(host);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& c : channel_table(d.sensors)) {
        out.emplace_back(c.name, c.device);
    }
    return out;
}

TEST(CaptureSysfs, FixtureDiscoversLikeTheNode) {
    test::FakeSysfs node;
    test::add_rapl_zone(node, "intel-rapl:0", "package-0", 5000, 262143328850ULL, 0444);
    test::add_rapl_zone(node, "intel-rapl:0:0", "dram", 700, 65532610987ULL, 0444);
    node.add({"/sys/devices/pci0000:00/0000:00:01.0/0000:03:00.0/hwmon/hwmon3/name", "amdgpu\n"});
    node.add({"/sys/devices/pci0000:00/0000:00:01.0/0000:03:00.0/hwmon/hwmon3/power1_average",
              "35000000\n"});
    node.symlink("../../devices/pci0000:00/0000:00:01.0/0000:03:00.0/hwmon/hwmon3",
                 "/sys/class/hwmon/hwmon3");
    node.symlink("../../../0000:03:00.0",
                 "/sys/devices/pci0000:00/0000:00:01.0/0000:03:00.0/hwmon/hwmon3/device");
    node.add({"/proc/stat", "cpu  100 0 100 1000 0 0 0 0 0 0\ncpu0 100 0 100 1000 0 0 0 0 0 0\n"});
    node.add({"/proc/meminfo", "MemTotal:       16384000 kB\n"});
    node.add({"/proc/cpuinfo", "processor\t: 0\nmodel name\t: AMD EPYC\n\n"});

    test::FakeSysfs out;
    const auto cmd = fmt::format("{}/../tools/capture-sysfs --root {} {}/fixture >/dev/null",
                                 JP_TEST_SOURCE_DIR, node.root().string(), out.root().string());
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const auto expected = names_and_devices(Host::with_root(node.root()));
    const auto captured = names_and_devices(Host::with_root(out.root() / "fixture"));
    EXPECT_EQ(captured, expected);
    EXPECT_EQ(expected.size(), 3U) << "package, dram and the amdgpu GPU";
}

TEST(CaptureSysfs, RefusesANonEmptyOutputAndBadUsage) {
    test::FakeSysfs out;
    out.add({"/x", "1\n"});
    const auto tool = fmt::format("{}/../tools/capture-sysfs", JP_TEST_SOURCE_DIR);
    EXPECT_NE(std::system(fmt::format("{} {} 2>/dev/null", tool, out.root().string()).c_str()), 0);
    EXPECT_NE(std::system(fmt::format("{} 2>/dev/null", tool).c_str()), 0);
}

} // namespace
} // namespace jp::sensors
