// SPDX-License-Identifier: BSD-3-Clause
#include "fake_sysfs.hpp"
#include "sensor_checks.hpp"
#include "sensors/pm_counters/pm_counters.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace jp::sensors {
namespace {

using test::any_note;
using test::find;
using test::read_all;

using pm_counters::parse_counter;
using test::FakeSysfs;

constexpr std::string_view k_dir = "/sys/cray/pm_counters";

std::string at(std::string_view file) {
    return fmt::format("{}/{}", k_dir, file);
}

std::size_t index_of(const Sensor& s, std::string_view name) {
    const auto* c = find(s, name);
    return c == nullptr ? s.channels().size() : static_cast<std::size_t>(c - s.channels().data());
}

// An HLRS "Hunter" node (HPE Cray EX255a, 4 MI300A APUs, pm_counters version 3).
// The node, accel0, cap, stamp and cap-telemetry values are those of a real dump
// (as mirrored by SC-SGS/hardware_sampling's test); accel1..3 copy accel0's shape
// with made-up values. Hunter has no cpu_energy/memory_energy (APUs).
void hunter(FakeSysfs& fs) {
    constexpr std::string_view k_ts = "7810213855886";
    fs.add({at("energy"), fmt::format("12044825101 J {} us\n", k_ts)});
    fs.add({at("power"), fmt::format("724 W {} us\n", k_ts)});
    fs.add({at("power_cap"), "2894 W\n"});
    const std::array<std::string_view, 4> accel_j{"2869283299", "2801120455", "2833871023",
                                                  "2790554812"};
    for (std::size_t n = 0; n < accel_j.size(); ++n) {
        fs.add(
            {at(fmt::format("accel{}_energy", n)), fmt::format("{} J {} us\n", accel_j[n], k_ts)});
        fs.add({at(fmt::format("accel{}_power", n)), fmt::format("212 W {} us\n", k_ts)});
        fs.add({at(fmt::format("accel{}_power_cap", n)), "0 W\n"});
    }
    fs.add({at("capped_energy"), fmt::format("12752953 J {} us\n", k_ts)});
    fs.add({at("overshoot"), "62408\n"});
    fs.add({at("overshoot_energy"), fmt::format("3951201 J {} us\n", k_ts)});
    fs.add({at("freshness"), "60043284\n"});
    fs.add({at("generation"), "16\n"});
    fs.add({at("raw_scan_hz"), "10\n"});
    fs.add({at("startup"), "1778580757634187\n"});
    fs.add({at("version"), "3\n"});
}

// A CPU blade with separate CPU and memory domains (values made up, format as on Hunter).
void cpu_blade(FakeSysfs& fs) {
    fs.add({at("energy"), "4410221 J 1622032145 us\n"});
    fs.add({at("cpu_energy"), "2520871 J 1622032145 us\n"});
    fs.add({at("memory_energy"), "611345 J 1622032145 us\n"});
    fs.add({at("power_cap"), "0 W\n"});
    fs.add({at("freshness"), "9931\n"});
    fs.add({at("generation"), "3\n"});
}

TEST(PmCounters, ParsesCounterLines) {
    auto e = parse_counter("12044825101 J 7810213855886 us\n", "J");
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->value, 12044825101ULL);
    EXPECT_EQ(e->timestamp_us, 7810213855886ULL);
    auto cap = parse_counter("2894 W\n", "W");
    ASSERT_TRUE(cap.has_value());
    EXPECT_EQ(cap->value, 2894U);
    EXPECT_FALSE(cap->timestamp_us.has_value());
    EXPECT_FALSE(parse_counter("724 W 7810213855886 us\n", "J")) << "wrong unit";
    EXPECT_FALSE(parse_counter("12x J 1 us\n", "J"));
    EXPECT_FALSE(parse_counter("12 J 1\n", "J"));
    EXPECT_FALSE(parse_counter("12 J 1 us trailing\n", "J"));
    EXPECT_FALSE(parse_counter("J 1 us\n", "J"));
    EXPECT_FALSE(parse_counter("", "J"));
}

TEST(PmCounters, HunterNodeAndAccelerators) {
    FakeSysfs fs;
    hunter(fs);
    auto d = pm_counters::discover(Host::with_root(fs.root()));
    ASSERT_EQ(d.sensors.size(), 1U);
    auto& s = *d.sensors[0];
    EXPECT_EQ(s.backend(), "pm_counters");
    ASSERT_EQ(s.channels().size(), 5U) << "node + accel0..3; caps and overshoot are not channels";
    const auto* node = find(s, "node");
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(node->domain, Domain::node);
    EXPECT_EQ(node->quantity, Quantity::energy);
    EXPECT_TRUE(node->counted);
    EXPECT_NEAR(*node->limit_watts, 2894.0, 1e-9);
    const auto* gpu0 = find(s, "gpu0.pm");
    ASSERT_NE(gpu0, nullptr);
    EXPECT_EQ(gpu0->domain, Domain::gpu);
    EXPECT_TRUE(gpu0->counted) << "a part of the node; the report computes the rest";
    EXPECT_TRUE(gpu0->device.empty()) << "pm_counters names no PCI address";
    EXPECT_FALSE(gpu0->limit_watts.has_value()) << "0 W means uncapped";
    EXPECT_NE(find(s, "gpu3.pm"), nullptr);
    EXPECT_EQ(s.min_interval(), std::chrono::milliseconds{100}) << "raw_scan_hz = 10";
    auto v = read_all(s);
    EXPECT_TRUE(std::ranges::all_of(v, [](const Value& x) { return x.status == ReadStatus::ok; }));
    EXPECT_EQ(v[index_of(s, "node")].value, 12044825101.0) << "already in joules";
    EXPECT_EQ(v[index_of(s, "gpu0.pm")].value, 2869283299.0);
}

TEST(PmCounters, CpuAndMemoryDomains) {
    FakeSysfs fs;
    cpu_blade(fs);
    auto d = pm_counters::discover(Host::with_root(fs.root()));
    ASSERT_EQ(d.sensors.size(), 1U) << "accelerator files are optional";
    auto& s = *d.sensors[0];
    ASSERT_EQ(s.channels().size(), 3U);
    EXPECT_EQ(find(s, "cpu.pm")->domain, Domain::cpu_package);
    EXPECT_EQ(find(s, "memory.pm")->domain, Domain::dram);
    EXPECT_FALSE(find(s, "node")->limit_watts.has_value()) << "power_cap 0 W: uncapped";
    EXPECT_EQ(s.min_interval(), std::chrono::milliseconds{100}) << "default without raw_scan_hz";
    auto v = read_all(s);
    EXPECT_EQ(v[index_of(s, "cpu.pm")].status, ReadStatus::ok);
    EXPECT_EQ(v[index_of(s, "memory.pm")].value, 611345.0);
}

// A scan lands between reading the counters and re-reading freshness.
struct Scans {
    FakeSysfs* fs = nullptr;
    int remaining = 0; // scans still to land
    std::uint64_t freshness = 60043284;
    std::uint64_t energy = 12044825101;
};

void land_scan(void* context) noexcept {
    auto& scans = *static_cast<Scans*>(context);
    if (scans.remaining == 0) {
        return;
    }
    --scans.remaining;
    scans.energy += 72;
    scans.fs->write(at("energy"), fmt::format("{} J 7810213955886 us\n", scans.energy));
    scans.fs->write(at("freshness"), fmt::format("{}\n", ++scans.freshness));
}

TEST(PmCounters, TornSnapshotIsReadAgain) {
    FakeSysfs fs;
    hunter(fs);
    Scans scans{&fs, 2};
    auto d = pm_counters::discover(Host::with_root(fs.root()), {land_scan, &scans});
    auto& s = *d.sensors[0];
    auto v = read_all(s);
    EXPECT_EQ(scans.remaining, 0);
    EXPECT_EQ(v[index_of(s, "node")].status, ReadStatus::ok);
    EXPECT_EQ(v[index_of(s, "node")].value, 12044825101.0 + 2 * 72) << "the last, coherent scan";
}

TEST(PmCounters, ScanThatKeepsMovingIsRetry) {
    FakeSysfs fs;
    hunter(fs);
    Scans scans{&fs, 1000};
    auto d = pm_counters::discover(Host::with_root(fs.root()), {land_scan, &scans});
    auto& s = *d.sensors[0];
    auto v = read_all(s);
    EXPECT_EQ(scans.remaining, 1000 - 4) << "the first read and 3 retries";
    EXPECT_TRUE(
        std::ranges::all_of(v, [](const Value& x) { return x.status == ReadStatus::retry; }));
    scans.remaining = 0;
    EXPECT_EQ(read_all(s)[0].status, ReadStatus::ok) << "the next scan is coherent again";
}

void change_cap(void* context) noexcept {
    static_cast<FakeSysfs*>(context)->write(at("generation"), "17\n");
}

TEST(PmCounters, CapChangeMidReadIsTornToo) {
    FakeSysfs fs;
    hunter(fs);
    auto d = pm_counters::discover(Host::with_root(fs.root()), {change_cap, &fs});
    auto& s = *d.sensors[0];
    auto v = read_all(s);
    EXPECT_EQ(v[0].status, ReadStatus::ok) << "second attempt sees generation 17 twice";
}

TEST(PmCounters, MalformedLineIsRetry) {
    FakeSysfs fs;
    hunter(fs);
    auto d = pm_counters::discover(Host::with_root(fs.root()));
    auto& s = *d.sensors[0];
    const auto node = index_of(s, "node");
    fs.write(at("energy"), "12044825x01 J 7810213855886 us\n");
    auto v = read_all(s);
    EXPECT_EQ(v[node].status, ReadStatus::retry);
    EXPECT_EQ(v[index_of(s, "gpu0.pm")].status, ReadStatus::ok) << "one bad file spoils no other";
    fs.write(at("energy"), "");
    EXPECT_EQ(read_all(s)[node].status, ReadStatus::retry);
    fs.write(at("freshness"), "garbage\n");
    EXPECT_EQ(read_all(s)[node].status, ReadStatus::retry);
    fs.write(at("freshness"), "60043290\n");
    fs.write(at("energy"), "12044825200 J 7810214855886 us\n");
    v = read_all(s);
    EXPECT_EQ(v[node].status, ReadStatus::ok);
    EXPECT_EQ(v[node].value, 12044825200.0);
}

TEST(PmCounters, MalformedAtDiscoveryIsSkippedWithANote) {
    FakeSysfs fs;
    cpu_blade(fs);
    fs.add({at("memory_energy"), "611345 W 1622032145 us\n"});
    auto d = pm_counters::discover(Host::with_root(fs.root()));
    ASSERT_EQ(d.sensors.size(), 1U);
    EXPECT_EQ(find(*d.sensors[0], "memory.pm"), nullptr);
    EXPECT_TRUE(any_note(d, "memory_energy"));
}

TEST(PmCounters, RemovedDirectoryIsGone) {
    FakeSysfs fs;
    hunter(fs);
    auto d = pm_counters::discover(Host::with_root(fs.root()));
    auto& s = *d.sensors[0];
    EXPECT_EQ(read_all(s)[0].status, ReadStatus::ok);
    fs.remove(k_dir);
    ::usleep(1'100'000); // the presence check runs about once a second
    auto v = read_all(s);
    EXPECT_TRUE(
        std::ranges::all_of(v, [](const Value& x) { return x.status == ReadStatus::gone; }));
}

TEST(PmCounters, UnreadableCounterIsAFinding) {
    if (::geteuid() == 0) {
        GTEST_SKIP() << "root reads mode-0000 files anyway; CI runs this as an unprivileged user";
    }
    FakeSysfs fs;
    cpu_blade(fs);
    fs.chmod(at("cpu_energy"), 0000);
    auto d = pm_counters::discover(Host::with_root(fs.root()));
    ASSERT_EQ(d.unreadable.size(), 1U);
    EXPECT_EQ(d.unreadable[0].what, "cpu_energy");
    EXPECT_NE(d.unreadable[0].reason.find("Permission denied"), std::string::npos);
    EXPECT_NE(d.unreadable[0].hint.find("jouleprofd"), std::string::npos);
    ASSERT_EQ(d.sensors.size(), 1U);
    EXPECT_EQ(d.sensors[0]->channels().size(), 2U);
}

TEST(PmCounters, NoDirectoryGivesANote) {
    FakeSysfs fs;
    auto d = pm_counters::discover(Host::with_root(fs.root()));
    EXPECT_TRUE(d.sensors.empty());
    EXPECT_TRUE(d.unreadable.empty());
    EXPECT_TRUE(any_note(d, "not an HPE Cray node"));
}

} // namespace
} // namespace jp::sensors
