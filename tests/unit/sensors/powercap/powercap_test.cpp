// SPDX-License-Identifier: BSD-3-Clause
#include "fake_sysfs.hpp"
#include "sensor_checks.hpp"
#include "sensors/powercap/powercap.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace jp::sensors {
namespace {

using test::find;
using test::read_all;

using test::add_rapl_zone;
using test::FakeSysfs;

// Two-socket Intel server: package + core + dram per socket (ids in hex, dram at :0:1 or :0:2).
void intel_server(FakeSysfs& fs) {
    add_rapl_zone(fs, "intel-rapl:0", "package-0", 124599532281ULL);
    add_rapl_zone(fs, "intel-rapl:0:0", "core", 1000000);
    add_rapl_zone(fs, "intel-rapl:0:1", "dram", 33000000, 65532610987ULL);
    add_rapl_zone(fs, "intel-rapl:1", "package-1", 5000000);
    add_rapl_zone(fs, "intel-rapl:1:0", "dram", 7000000, 65532610987ULL);
    fs.add({"/sys/class/powercap/intel-rapl/enabled", "1\n"});
}

TEST(Powercap, DiscoversDomainsByNameNotIndex) {
    FakeSysfs fs;
    intel_server(fs);
    auto d = powercap::discover(Host::with_root(fs.root()));
    ASSERT_EQ(d.sensors.size(), 1U);
    const auto& s = *d.sensors[0];
    ASSERT_EQ(s.channels().size(), 5U);
    const auto* pkg = find(s, "cpu0.package");
    ASSERT_NE(pkg, nullptr);
    EXPECT_EQ(pkg->domain, Domain::cpu_package);
    EXPECT_EQ(pkg->quantity, Quantity::energy);
    EXPECT_TRUE(pkg->counted);
    EXPECT_NEAR(*pkg->wrap_joules, 262143.328850, 1e-6);
    EXPECT_NEAR(*pkg->limit_watts, 165.0, 1e-9) << "the long-term limit";
    ASSERT_TRUE(pkg->max_watts);
    EXPECT_NEAR(*pkg->max_watts, 198.0, 1e-9) << "the short-term limit, above it";
    const auto* core = find(s, "cpu0.core");
    ASSERT_NE(core, nullptr);
    EXPECT_FALSE(core->counted) << "core is inside the package";
    EXPECT_EQ(core->parent, "cpu0.package");
    const auto* dram1 = find(s, "cpu1.dram");
    ASSERT_NE(dram1, nullptr);
    EXPECT_EQ(dram1->domain, Domain::dram);
    EXPECT_TRUE(dram1->counted) << "dram is separate from the package";
}

TEST(Powercap, ReadsMicrojoulesAsJoules) {
    FakeSysfs fs;
    intel_server(fs);
    auto d = powercap::discover(Host::with_root(fs.root()));
    auto& s = *d.sensors[0];
    auto v = read_all(s);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_NEAR(v[0].value, 124599.532281, 1e-9);
    fs.write("/sys/class/powercap/intel-rapl:0/energy_uj", "124600532281\n");
    EXPECT_NEAR(read_all(s)[0].value, 124600.532281, 1e-9);
}

TEST(Powercap, PsysContainsPackagesAndDram) {
    FakeSysfs fs;
    add_rapl_zone(fs, "intel-rapl:0", "package-0", 10);
    add_rapl_zone(fs, "intel-rapl:0:0", "core", 1);
    add_rapl_zone(fs, "intel-rapl:0:1", "uncore", 1);
    add_rapl_zone(fs, "intel-rapl:1", "psys", 20);
    auto d = powercap::discover(Host::with_root(fs.root()));
    const auto& s = *d.sensors[0];
    EXPECT_TRUE(find(s, "psys")->counted);
    EXPECT_FALSE(find(s, "cpu0.package")->counted);
    EXPECT_EQ(find(s, "cpu0.package")->parent, "psys");
    EXPECT_EQ(find(s, "cpu0.uncore")->domain, Domain::cpu_uncore);
}

TEST(Powercap, SkipsMmioDuplicate) {
    FakeSysfs fs;
    add_rapl_zone(fs, "intel-rapl:0", "package-0", 10);
    add_rapl_zone(fs, "intel-rapl-mmio:0", "package-0", 10);
    auto d = powercap::discover(Host::with_root(fs.root()));
    ASSERT_EQ(d.sensors.size(), 1U);
    EXPECT_EQ(d.sensors[0]->channels().size(), 1U);
    EXPECT_TRUE(std::ranges::any_of(d.notes, [](auto& n) { return n.find("mmio") != n.npos; }));
}

TEST(Powercap, AmdDiesWithTheSameCounterCountOnce) {
    FakeSysfs fs;
    add_rapl_zone(fs, "intel-rapl:0", "package-0-die-0", 777000000);
    add_rapl_zone(fs, "intel-rapl:1", "package-0-die-1", 777000000);
    add_rapl_zone(fs, "intel-rapl:2", "package-1-die-0", 123000000);
    auto d = powercap::discover(Host::with_root(fs.root()));
    const auto& s = *d.sensors[0];
    EXPECT_TRUE(find(s, "cpu0.die0.package")->counted);
    EXPECT_FALSE(find(s, "cpu0.die1.package")->counted);
    EXPECT_TRUE(find(s, "cpu1.die0.package")->counted);
}

TEST(Powercap, IntelDiesWithDistinctCountersBothCount) {
    FakeSysfs fs;
    add_rapl_zone(fs, "intel-rapl:0", "package-0-die-0", 100000000);
    add_rapl_zone(fs, "intel-rapl:1", "package-0-die-1", 200000000);
    auto d = powercap::discover(Host::with_root(fs.root()));
    const auto& s = *d.sensors[0];
    EXPECT_TRUE(find(s, "cpu0.die0.package")->counted);
    EXPECT_TRUE(find(s, "cpu0.die1.package")->counted);
}

TEST(Powercap, HexZoneIds) {
    FakeSysfs fs;
    for (int i = 0; i < 11; ++i) {
        add_rapl_zone(fs, fmt::format("intel-rapl:{:x}", i), fmt::format("package-{}", i), 5);
    }
    auto d = powercap::discover(Host::with_root(fs.root()));
    EXPECT_EQ(d.sensors[0]->channels().size(), 11U);
    EXPECT_NE(find(*d.sensors[0], "cpu10.package"), nullptr);
}

TEST(Powercap, MalformedContentIsRetryNotGarbage) {
    FakeSysfs fs;
    add_rapl_zone(fs, "intel-rapl:0", "package-0", 10);
    auto d = powercap::discover(Host::with_root(fs.root()));
    auto& s = *d.sensors[0];
    fs.write("/sys/class/powercap/intel-rapl:0/energy_uj", "12x4\n");
    EXPECT_EQ(read_all(s)[0].status, ReadStatus::retry);
    fs.write("/sys/class/powercap/intel-rapl:0/energy_uj", "\n");
    EXPECT_EQ(read_all(s)[0].status, ReadStatus::retry);
    fs.write("/sys/class/powercap/intel-rapl:0/energy_uj", "99\n");
    EXPECT_EQ(read_all(s)[0].status, ReadStatus::ok);
}

TEST(Powercap, ZoneThatDisappearsIsGone) {
    FakeSysfs fs;
    add_rapl_zone(fs, "intel-rapl:0", "package-0", 10);
    add_rapl_zone(fs, "intel-rapl:1", "package-1", 10);
    auto d = powercap::discover(Host::with_root(fs.root()));
    auto& s = *d.sensors[0];
    EXPECT_EQ(read_all(s)[1].status, ReadStatus::ok);
    fs.remove("/sys/class/powercap/intel-rapl:1");
    ::usleep(1'100'000); // the presence check runs about once a second
    auto v = read_all(s);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_EQ(v[1].status, ReadStatus::gone);
}

TEST(Powercap, MissingRangeMeansNoWrapCorrection) {
    FakeSysfs fs;
    add_rapl_zone(fs, "intel-rapl:0", "package-0", 10);
    fs.remove("/sys/class/powercap/intel-rapl:0/max_energy_range_uj");
    auto d = powercap::discover(Host::with_root(fs.root()));
    EXPECT_FALSE(d.sensors[0]->channels()[0].wrap_joules.has_value());
}

TEST(Powercap, UnreadableEnergyExplainsWhyAndHow) {
    if (::geteuid() == 0) {
        GTEST_SKIP() << "root reads mode-0400 files anyway; CI runs this as an unprivileged user";
    }
    FakeSysfs fs;
    add_rapl_zone(fs, "intel-rapl:0", "package-0", 10, 262143328850ULL, 0400);
    fs.chmod("/sys/class/powercap/intel-rapl:0/energy_uj", 0000);
    auto d = powercap::discover(Host::with_root(fs.root()));
    EXPECT_TRUE(d.sensors.empty());
    ASSERT_EQ(d.unreadable.size(), 1U);
    EXPECT_NE(d.unreadable[0].reason.find("Permission denied"), std::string::npos);
    EXPECT_NE(d.unreadable[0].hint.find("CVE-2020-8694"), std::string::npos);
    EXPECT_NE(d.unreadable[0].hint.find("perf_event_paranoid"), std::string::npos);
}

TEST(Powercap, NoTreeMeansNoSensorsAndANote) {
    FakeSysfs fs;
    auto d = powercap::discover(Host::with_root(fs.root()));
    EXPECT_TRUE(d.sensors.empty());
    EXPECT_FALSE(d.notes.empty());
}

} // namespace
} // namespace jp::sensors
