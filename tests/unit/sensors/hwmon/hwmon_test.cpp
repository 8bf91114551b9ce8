// SPDX-License-Identifier: BSD-3-Clause
#include "fake_sysfs.hpp"
#include "sensor_checks.hpp"
#include "sensors/hwmon/hwmon.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace jp::sensors {
namespace {

using test::any_note;
using test::find;
using test::read_all;

using test::FakeSysfs;

// An hwmon device as the kernel lays it out: attributes in
// <parent>/hwmon/<id>/, /sys/class/hwmon/<id> a symlink to that directory, and
// <id>/device a link back to the parent device. Returns the attribute directory.
std::string
add_hwmon(FakeSysfs& fs, std::string_view parent, std::string_view id, std::string_view name) {
    const auto dir = fmt::format("{}/hwmon/{}", parent, id);
    fs.add({dir + "/name", fmt::format("{}\n", name)});
    fs.symlink(fmt::format("../..{}", dir.substr(4)), fmt::format("/sys/class/hwmon/{}", id));
    const auto device = parent.substr(parent.rfind('/') + 1);
    fs.symlink(fmt::format("../../../{}", device), dir + "/device");
    return dir;
}

// ACPI 4.0 power meter (acpi_power_meter), BMC-backed: power1_average only.
std::string acpi_power_meter(FakeSysfs& fs) {
    const auto dir =
        add_hwmon(fs, "/sys/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI000D:00", "hwmon0", "power_meter");
    fs.add({dir + "/power1_average", "345000000\n"});
    fs.add({dir + "/power1_average_interval", "1000\n", 0644});
    fs.add({dir + "/power1_average_interval_min", "1000\n"});
    fs.add({dir + "/power1_average_interval_max", "3600000\n"});
    fs.add({dir + "/power1_accuracy", "95.0%\n"});
    fs.add({dir + "/power1_cap", "800000000\n", 0644});
    fs.add({dir + "/power1_is_battery", "0\n"});
    fs.add({dir + "/power1_model_number", "SMART\n"});
    fs.add({dir + "/power1_oem_info", "\n"});
    return dir;
}

// A discrete AMD GPU at 0000:03:00.0 behind root port 0000:00:01.1.
std::string amdgpu(FakeSysfs& fs) {
    const auto dir =
        add_hwmon(fs, "/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0", "hwmon3", "amdgpu");
    fs.add({dir + "/power1_average", "35000000\n"});
    fs.add({dir + "/power1_input", "41000000\n"});
    fs.add({dir + "/power1_label", "PPT\n"});
    fs.add({dir + "/power1_cap", "220000000\n", 0644});
    fs.add({dir + "/power1_cap_max", "255000000\n"});
    fs.add({dir + "/power1_cap_min", "0\n"});
    fs.add({dir + "/temp1_input", "45000\n"});
    fs.add({dir + "/temp1_label", "edge\n"});
    return dir;
}

// Out-of-tree amd_energy on a 1-socket Zen2 with 2 cores shown: energy files are
// restricted to owner and group (CVE-2020-12912), labels EcoreNNN then EsocketN.
std::string amd_energy(FakeSysfs& fs, mode_t energy_mode = 0440) {
    const auto dir = add_hwmon(fs, "/sys/devices/platform/amd_energy.0", "hwmon2", "amd_energy");
    const std::array<std::pair<std::string_view, std::string_view>, 3> rows{
        {{"Ecore000", "1500000000"}, {"Ecore001", "1200000000"}, {"Esocket0", "98765000000"}}};
    for (std::size_t i = 0; i < rows.size(); ++i) {
        fs.add({fmt::format("{}/energy{}_input", dir, i + 1), fmt::format("{}\n", rows[i].second),
                energy_mode});
        fs.add({fmt::format("{}/energy{}_label", dir, i + 1), fmt::format("{}\n", rows[i].first)});
    }
    for (int cpu = 0; cpu < 2; ++cpu) {
        fs.add({fmt::format("/sys/devices/system/cpu/cpu{}/topology/physical_package_id", cpu),
                "0\n"});
    }
    return dir;
}

TEST(Hwmon, AcpiPowerMeterIsTheNode) {
    FakeSysfs fs;
    acpi_power_meter(fs);
    auto d = hwmon::discover(Host::with_root(fs.root()));
    ASSERT_EQ(d.sensors.size(), 1U);
    auto& s = *d.sensors[0];
    ASSERT_EQ(s.channels().size(), 1U);
    const auto& node = s.channels()[0];
    EXPECT_EQ(node.name, "node");
    EXPECT_EQ(node.domain, Domain::node);
    EXPECT_EQ(node.quantity, Quantity::power);
    EXPECT_EQ(node.backend, "hwmon");
    EXPECT_TRUE(node.counted);
    ASSERT_TRUE(node.limit_watts.has_value());
    EXPECT_NEAR(*node.limit_watts, 800.0, 1e-9);
    EXPECT_TRUE(node.source.ends_with("power1_average"));
    EXPECT_EQ(s.min_interval(), std::chrono::milliseconds{1000}) << "the averaging window";
    auto v = read_all(s);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_NEAR(v[0].value, 345.0, 1e-9) << "µW -> W";
}

TEST(Hwmon, AmdgpuIsAGpuIdentifiedByPciAddress) {
    FakeSysfs fs;
    amdgpu(fs);
    auto d = hwmon::discover(Host::with_root(fs.root()));
    ASSERT_EQ(d.sensors.size(), 1U);
    auto& s = *d.sensors[0];
    ASSERT_EQ(s.channels().size(), 1U) << "one channel per index; temperatures are ignored";
    const auto& gpu = s.channels()[0];
    EXPECT_EQ(gpu.name, "gpu.amdgpu.0000:03:00.0");
    EXPECT_EQ(gpu.domain, Domain::gpu);
    EXPECT_EQ(gpu.device, "pci:0000:03:00.0");
    EXPECT_TRUE(gpu.counted);
    EXPECT_TRUE(gpu.source.ends_with("power1_average")) << "amdgpu prefers the SoC average";
    EXPECT_NEAR(*gpu.limit_watts, 220.0, 1e-9);
    EXPECT_NEAR(read_all(s)[0].value, 35.0, 1e-9);
}

TEST(Hwmon, AmdgpuApuSecondPptIsNotCountedAgain) {
    FakeSysfs fs;
    const auto dir = amdgpu(fs);
    fs.add({dir + "/power1_label", "slowPPT\n"});
    fs.add({dir + "/power2_average", "30000000\n"});
    fs.add({dir + "/power2_label", "fastPPT\n"});
    auto d = hwmon::discover(Host::with_root(fs.root()));
    const auto* fast = find(d, "gpu.amdgpu.0000:03:00.0.fastppt");
    ASSERT_NE(fast, nullptr);
    EXPECT_FALSE(fast->counted);
    EXPECT_EQ(fast->parent, "gpu.amdgpu.0000:03:00.0");
}

TEST(Hwmon, AmdEnergySocketsAreCountedPackagesCoresAreNot) {
    FakeSysfs fs;
    amd_energy(fs);
    auto d = hwmon::discover(Host::with_root(fs.root()));
    ASSERT_EQ(d.sensors.size(), 1U);
    EXPECT_TRUE(d.unreadable.empty()) << "the owner may read mode-0440 files";
    const auto* pkg = find(d, "cpu0.package");
    ASSERT_NE(pkg, nullptr);
    EXPECT_EQ(pkg->domain, Domain::cpu_package);
    EXPECT_EQ(pkg->quantity, Quantity::energy);
    EXPECT_TRUE(pkg->counted);
    EXPECT_EQ(pkg->device, "rapl:package:0") << "the same counter powercap reads";
    EXPECT_FALSE(pkg->wrap_joules.has_value()) << "the driver folds into 64 bits";
    const auto* core = find(d, "cpu0.core1");
    ASSERT_NE(core, nullptr);
    EXPECT_EQ(core->domain, Domain::cpu_core);
    EXPECT_FALSE(core->counted);
    EXPECT_EQ(core->parent, "cpu0.package");
    auto v = read_all(*d.sensors[0]);
    const auto& ch = d.sensors[0]->channels();
    const auto i = static_cast<std::size_t>(pkg - ch.data());
    EXPECT_EQ(v[i].status, ReadStatus::ok);
    EXPECT_NEAR(v[i].value, 98765.0, 1e-9) << "µJ -> J";
}

TEST(Hwmon, AmdEnergyDeniedExplainsTheCve) {
    if (::geteuid() == 0) {
        GTEST_SKIP() << "root reads mode-0400 files anyway; CI runs this as an unprivileged user";
    }
    FakeSysfs fs;
    amd_energy(fs, 0000); // as seen by a user outside the file's group
    auto d = hwmon::discover(Host::with_root(fs.root()));
    EXPECT_TRUE(d.sensors.empty());
    ASSERT_EQ(d.unreadable.size(), 1U) << "one finding per device, not per file";
    const auto& f = d.unreadable[0];
    EXPECT_EQ(f.backend, "hwmon");
    EXPECT_NE(f.what.find("amd_energy"), std::string::npos);
    EXPECT_NE(f.reason.find("Permission denied"), std::string::npos);
    EXPECT_NE(f.reason.find("2 more"), std::string::npos);
    EXPECT_NE(f.hint.find("CVE-2020-12912"), std::string::npos);
}

TEST(Hwmon, UnknownDeviceIsShownButNotCounted) {
    FakeSysfs fs;
    const auto dir =
        add_hwmon(fs, "/sys/devices/pci0000:00/0000:00:02.0/0000:04:00.0", "hwmon5", "xe");
    fs.add({dir + "/energy1_input", "2500000000\n"});
    fs.add({dir + "/energy1_label", "card\n"});
    fs.add({dir + "/power1_max", "150000000\n"});
    fs.add({dir + "/power1_input", "20000000\n"}); // same index as energy1: energy wins
    fs.add({dir + "/energy2_input", "1500000000\n"});
    fs.add({dir + "/energy2_label", "pkg\n"});
    auto d = hwmon::discover(Host::with_root(fs.root()));
    ASSERT_EQ(d.sensors.size(), 1U);
    ASSERT_EQ(d.sensors[0]->channels().size(), 2U);
    const auto* card = find(d, "hwmon.xe.card");
    ASSERT_NE(card, nullptr);
    EXPECT_EQ(card->domain, Domain::other);
    EXPECT_EQ(card->quantity, Quantity::energy);
    EXPECT_FALSE(card->counted) << "unknown sensors are never summed";
    EXPECT_NEAR(read_all(*d.sensors[0])[0].value, 2500.0, 1e-9);
    EXPECT_NE(find(d, "hwmon.xe.pkg"), nullptr);
}

TEST(Hwmon, UnknownDevicePrefersInstantPowerAndHonoursEnable) {
    FakeSysfs fs;
    const auto dir = add_hwmon(fs, "/sys/devices/platform/some_psu.0", "hwmon1", "some_psu");
    fs.add({dir + "/power1_input", "120000000\n"});
    fs.add({dir + "/power1_average", "110000000\n"});
    fs.add({dir + "/power2_input", "5000000\n"});
    fs.add({dir + "/power2_enable", "0\n", 0644});
    fs.add({dir + "/power3_input", ""}); // reads ENODATA, as a sensor without data
    auto d = hwmon::discover(Host::with_root(fs.root()));
    ASSERT_EQ(d.sensors.size(), 1U);
    const auto channels = d.sensors[0]->channels();
    ASSERT_EQ(channels.size(), 1U);
    EXPECT_EQ(channels[0].name, "hwmon.some_psu.power1");
    EXPECT_TRUE(channels[0].source.ends_with("power1_input"));
    EXPECT_TRUE(any_note(d, "power3_input"));
}

TEST(Hwmon, MalformedContentIsRetry) {
    FakeSysfs fs;
    const auto dir = acpi_power_meter(fs);
    auto d = hwmon::discover(Host::with_root(fs.root()));
    auto& s = *d.sensors[0];
    fs.write(dir + "/power1_average", "34x0\n");
    EXPECT_EQ(read_all(s)[0].status, ReadStatus::retry);
    fs.write(dir + "/power1_average", "");
    EXPECT_EQ(read_all(s)[0].status, ReadStatus::retry);
    fs.write(dir + "/power1_average", "350000000\n");
    auto v = read_all(s);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_NEAR(v[0].value, 350.0, 1e-9);
}

TEST(Hwmon, DeviceRemovedMidRunIsGone) {
    FakeSysfs fs;
    acpi_power_meter(fs);
    amdgpu(fs);
    auto d = hwmon::discover(Host::with_root(fs.root()));
    ASSERT_EQ(d.sensors.size(), 2U);
    auto& gpu = *d.sensors[1];
    ASSERT_EQ(gpu.channels()[0].domain, Domain::gpu);
    EXPECT_EQ(read_all(gpu)[0].status, ReadStatus::ok);
    fs.remove("/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0");
    fs.remove("/sys/class/hwmon/hwmon3");
    ::usleep(1'100'000); // the presence check runs about once a second
    EXPECT_EQ(read_all(gpu)[0].status, ReadStatus::gone);
    EXPECT_EQ(read_all(gpu)[0].status, ReadStatus::gone) << "gone stays gone";
    EXPECT_EQ(read_all(*d.sensors[0])[0].status, ReadStatus::ok);
}

TEST(Hwmon, DeviceWithoutPowerGivesANote) {
    FakeSysfs fs;
    const auto dir = add_hwmon(fs, "/sys/devices/platform/coretemp.0", "hwmon4", "coretemp");
    fs.add({dir + "/temp1_input", "45000\n"});
    auto d = hwmon::discover(Host::with_root(fs.root()));
    EXPECT_TRUE(d.sensors.empty());
    EXPECT_TRUE(any_note(d, "no power or energy"));
}

TEST(Hwmon, NoHwmonDirectoryGivesANote) {
    FakeSysfs fs;
    auto d = hwmon::discover(Host::with_root(fs.root()));
    EXPECT_TRUE(d.sensors.empty());
    EXPECT_TRUE(d.unreadable.empty());
    EXPECT_TRUE(any_note(d, "no devices"));
}

} // namespace
} // namespace jp::sensors
