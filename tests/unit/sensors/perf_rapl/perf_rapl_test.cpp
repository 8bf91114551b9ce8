// SPDX-License-Identifier: BSD-3-Clause
#include "fake_sysfs.hpp"
#include "sensor_checks.hpp"
#include "sensors/perf_rapl/perf_rapl.hpp"
#include "sensors/perf_rapl/pmu.hpp"
#include "sys/cpu_list.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <map>

namespace jp::sensors {
namespace {

using test::find;
using test::read_all;

using test::FakeSysfs;

constexpr std::uint32_t k_power_type = 23; // the dynamic PMU type number sysfs reports
constexpr std::string_view k_pmu = "/sys/bus/event_source/devices/power";
constexpr double k_pkg_scale = 2.3283064365386962890625e-10; // 2^-32 J per count

// The kernel side of perf_event_open, scripted by each test.
struct FakeCounter {
    std::uint32_t type = 0;
    std::uint64_t config = 0;
    int pid = 0;
    int cpu = 0;
    std::uint64_t count = 0;
    int read_errno = 0; // non-zero: read fails with it
    bool closed = false;
};

struct FakeKernel {
    std::map<std::uint64_t, int> open_errno; // event config -> errno of every open
    std::vector<FakeCounter> counters;       // fd = k_first_fd + index
    static constexpr int k_first_fd = 100;

    FakeCounter& at(std::uint64_t config, int cpu) {
        return *std::ranges::find_if(
            counters, [&](const FakeCounter& c) { return c.config == config && c.cpu == cpu; });
    }
};

FakeKernel g_kernel;

int fake_open(perf_event_attr* attr, int pid, int cpu, int /*group_fd*/, unsigned long /*flags*/) {
    if (auto it = g_kernel.open_errno.find(attr->config); it != g_kernel.open_errno.end()) {
        errno = it->second;
        return -1;
    }
    g_kernel.counters.push_back({attr->type, attr->config, pid, cpu, 0, 0, false});
    return FakeKernel::k_first_fd + static_cast<int>(g_kernel.counters.size()) - 1;
}

FakeCounter* counter_of(int fd) {
    const auto i = static_cast<std::size_t>(fd - FakeKernel::k_first_fd);
    return i < g_kernel.counters.size() ? &g_kernel.counters[i] : nullptr;
}

int fake_read_count(int fd, std::uint64_t* count) {
    auto* c = counter_of(fd);
    if (c == nullptr || c->closed) {
        errno = EBADF;
        return -1;
    }
    if (c->read_errno != 0) {
        errno = c->read_errno;
        return -1;
    }
    *count = c->count;
    return 0;
}

int fake_close(int fd) {
    if (auto* c = counter_of(fd)) {
        c->closed = true;
    }
    return 0;
}

constexpr PerfApi k_fake_api{fake_open, fake_read_count, fake_close};

void add_event(FakeSysfs& fs,
               std::string_view name,
               std::string_view code,
               std::string_view scale) {
    fs.add({fmt::format("{}/events/{}", k_pmu, name), fmt::format("{}\n", code)});
    fs.add({fmt::format("{}/events/{}.scale", k_pmu, name), fmt::format("{}\n", scale)});
    fs.add({fmt::format("{}/events/{}.unit", k_pmu, name), "Joules\n"});
}

// A two-socket Intel server: one CPU per package in cpumask, pkg and ram events
// (DRAM with its own, fixed 15.3 µJ unit), as arch/x86/events/rapl.c exposes them.
void server(FakeSysfs& fs, std::string_view cpumask = "0,32") {
    fs.add({fmt::format("{}/type", k_pmu), fmt::format("{}\n", k_power_type)});
    fs.add({fmt::format("{}/cpumask", k_pmu), fmt::format("{}\n", cpumask)});
    fs.add({fmt::format("{}/format/event", k_pmu), "config:0-7\n"});
    add_event(fs, "energy-pkg", "event=0x02", "2.3283064365386962890625e-10");
    add_event(fs, "energy-ram", "event=0x03", "3.5762786865234375e-06");
    fs.add({"/proc/sys/kernel/perf_event_paranoid", "2\n", 0644});
}

class PerfRapl : public ::testing::Test {
protected:
    void SetUp() override { g_kernel = {}; }

    Discovery discover() const {
        auto host = Host::with_root(m_fs.root());
        host.perf = &k_fake_api;
        return perf_rapl::discover(host);
    }

    FakeSysfs m_fs;
};

TEST(PerfRaplPmu, ParsesSysfsFormats) {
    EXPECT_EQ(perf_rapl::parse_event_config("event=0x02\n"), 2U);
    EXPECT_EQ(perf_rapl::parse_event_config("event=0x1b"), 0x1bU);
    EXPECT_EQ(perf_rapl::parse_event_config("event=5"), 5U);
    EXPECT_FALSE(perf_rapl::parse_event_config("event=0x02,umask=0x1"));
    EXPECT_FALSE(perf_rapl::parse_event_config("config=2"));
    EXPECT_DOUBLE_EQ(*perf_rapl::parse_scale("2.3283064365386962890625e-10\n"), k_pkg_scale);
    EXPECT_FALSE(perf_rapl::parse_scale("0"));
    EXPECT_FALSE(perf_rapl::parse_scale("1e-10J"));
    EXPECT_EQ(sys::parse_cpu_list("0,32\n"), (std::vector<int>{0, 32}));
    EXPECT_EQ(sys::parse_cpu_list("0-2,8"), (std::vector<int>{0, 1, 2, 8}));
    EXPECT_FALSE(sys::parse_cpu_list(""));
    EXPECT_FALSE(sys::parse_cpu_list("3-1"));
    // Not a cpumask, and no gigabytes for it (found by fuzz/sensor_files).
    EXPECT_FALSE(sys::parse_cpu_list("0-2000000000"));
    EXPECT_FALSE(sys::parse_cpu_list("0-60000,0-60000"));
    EXPECT_EQ(sys::parse_cpu_list("0-8191")->size(), 8192U);
    EXPECT_FALSE(sys::parse_cpu_list("0,,1"));
}

TEST_F(PerfRapl, OneCounterPerEventAndPackage) {
    server(m_fs);
    auto d = discover();
    ASSERT_EQ(d.sensors.size(), 1U);
    auto& s = *d.sensors[0];
    EXPECT_EQ(s.backend(), "perf_rapl");
    ASSERT_EQ(s.channels().size(), 4U);
    ASSERT_EQ(g_kernel.counters.size(), 4U);
    for (const auto& c : g_kernel.counters) {
        EXPECT_EQ(c.type, k_power_type);
        EXPECT_EQ(c.pid, -1) << "system-wide on one CPU";
    }
    const auto* pkg1 = find(s, "cpu1.package");
    ASSERT_NE(pkg1, nullptr);
    EXPECT_EQ(pkg1->domain, Domain::cpu_package);
    EXPECT_EQ(pkg1->quantity, Quantity::energy);
    EXPECT_TRUE(pkg1->counted);
    EXPECT_EQ(pkg1->device, "rapl:package:1");
    EXPECT_FALSE(pkg1->wrap_joules.has_value()) << "perf keeps a 64-bit count";
    const auto* dram0 = find(s, "cpu0.dram");
    ASSERT_NE(dram0, nullptr);
    EXPECT_EQ(dram0->domain, Domain::dram);
    EXPECT_EQ(dram0->device, "rapl:dram:0");
    EXPECT_TRUE(dram0->counted);
    EXPECT_EQ(g_kernel.at(0x02, 32).type, k_power_type) << "package 1 opened on cpu 32";
    EXPECT_EQ(g_kernel.at(0x03, 0).type, k_power_type);
}

TEST_F(PerfRapl, CountsBecomeJoulesWithTheSysfsScale) {
    server(m_fs);
    auto d = discover();
    auto& s = *d.sensors[0];
    g_kernel.at(0x02, 0).count = 1ULL << 40U; // 256 J at 2^-32 J per count
    g_kernel.at(0x03, 32).count = 1'000'000;
    auto v = read_all(s);
    const auto idx = [&](std::string_view n) {
        return static_cast<std::size_t>(find(s, n) - s.channels().data());
    };
    EXPECT_EQ(v[idx("cpu0.package")].status, ReadStatus::ok);
    EXPECT_DOUBLE_EQ(v[idx("cpu0.package")].value, 256.0);
    EXPECT_NEAR(v[idx("cpu1.dram")].value, 3.5762786865234375, 1e-12);
}

TEST_F(PerfRapl, CoresInsidePackagePsysAboveAll) {
    server(m_fs, "0");
    add_event(m_fs, "energy-cores", "event=0x01", "2.3283064365386962890625e-10");
    add_event(m_fs, "energy-psys", "event=0x05", "2.3283064365386962890625e-10");
    auto d = discover();
    auto& s = *d.sensors[0];
    const auto* core = find(s, "cpu0.core");
    ASSERT_NE(core, nullptr);
    EXPECT_EQ(core->domain, Domain::cpu_core);
    EXPECT_FALSE(core->counted);
    EXPECT_EQ(core->parent, "cpu0.package");
    EXPECT_EQ(core->device, "rapl:core:0");
    const auto* psys = find(s, "psys");
    ASSERT_NE(psys, nullptr);
    EXPECT_TRUE(psys->counted);
    EXPECT_EQ(psys->device, "rapl:psys");
    EXPECT_FALSE(find(s, "cpu0.package")->counted);
    EXPECT_EQ(find(s, "cpu0.package")->parent, "psys");
    EXPECT_FALSE(find(s, "cpu0.dram")->counted);
}

TEST_F(PerfRapl, PsysIsOpenedOnceNotPerPackage) {
    server(m_fs);
    add_event(m_fs, "energy-psys", "event=0x05", "2.3283064365386962890625e-10");
    auto d = discover();
    EXPECT_EQ(std::ranges::count(g_kernel.counters, 0x05U, &FakeCounter::config), 1);
    EXPECT_EQ(d.sensors[0]->channels().size(), 5U);
}

TEST_F(PerfRapl, DeniedOpenExplainsParanoidAndClosesEverything) {
    server(m_fs);
    g_kernel.open_errno[0x03] = EACCES; // pkg opens on cpu 0, then ram is denied
    auto d = discover();
    EXPECT_TRUE(d.sensors.empty());
    ASSERT_EQ(d.unreadable.size(), 1U) << "one finding, not one per counter";
    const auto& f = d.unreadable[0];
    EXPECT_EQ(f.backend, "perf_rapl");
    EXPECT_NE(f.reason.find("Permission denied"), std::string::npos);
    EXPECT_NE(f.hint.find("perf_event_paranoid <= 0 (now 2, read from "), std::string::npos);
    EXPECT_NE(f.hint.find(m_fs.path("/proc/sys/kernel/perf_event_paranoid").string()),
              std::string::npos);
    EXPECT_NE(f.hint.find("cap_perfmon"), std::string::npos);
    EXPECT_NE(f.hint.find("jouleprofd"), std::string::npos);
    EXPECT_TRUE(std::ranges::all_of(g_kernel.counters, &FakeCounter::closed));
}

TEST_F(PerfRapl, EpermWithoutProcSaysUnknown) {
    server(m_fs);
    m_fs.remove("/proc");
    g_kernel.open_errno[0x02] = EPERM;
    auto d = discover();
    ASSERT_EQ(d.unreadable.size(), 1U);
    EXPECT_NE(d.unreadable[0].hint.find("now unknown"), std::string::npos);
}

TEST_F(PerfRapl, UnsupportedEventIsANoteOthersStay) {
    server(m_fs);
    g_kernel.open_errno[0x03] = EINVAL;
    auto d = discover();
    ASSERT_EQ(d.sensors.size(), 1U);
    EXPECT_EQ(d.sensors[0]->channels().size(), 2U);
    EXPECT_TRUE(
        std::ranges::any_of(d.notes, [](auto& n) { return n.find("energy-ram") != n.npos; }));
}

TEST_F(PerfRapl, ReadFailuresMapToRetryGoneFatal) {
    server(m_fs);
    auto d = discover();
    auto& s = *d.sensors[0];
    g_kernel.at(0x02, 0).read_errno = EAGAIN;
    g_kernel.at(0x03, 0).read_errno = ENODEV;
    g_kernel.at(0x02, 32).read_errno = EBADF;
    auto v = read_all(s);
    const auto idx = [&](std::string_view n) {
        return static_cast<std::size_t>(find(s, n) - s.channels().data());
    };
    EXPECT_EQ(v[idx("cpu0.package")].status, ReadStatus::retry);
    EXPECT_EQ(v[idx("cpu0.dram")].status, ReadStatus::gone);
    EXPECT_EQ(v[idx("cpu1.package")].status, ReadStatus::fatal);
    EXPECT_EQ(v[idx("cpu1.dram")].status, ReadStatus::ok);
    g_kernel.at(0x02, 0).read_errno = 0;
    g_kernel.at(0x03, 0).read_errno = 0;
    v = read_all(s);
    EXPECT_EQ(v[idx("cpu0.package")].status, ReadStatus::ok) << "retry recovers";
    EXPECT_EQ(v[idx("cpu0.dram")].status, ReadStatus::gone) << "gone stays gone";
}

TEST_F(PerfRapl, SensorClosesItsCounters) {
    server(m_fs);
    {
        auto d = discover();
        EXPECT_FALSE(std::ranges::any_of(g_kernel.counters, &FakeCounter::closed));
    }
    EXPECT_TRUE(std::ranges::all_of(g_kernel.counters, &FakeCounter::closed));
}

TEST_F(PerfRapl, BadScaleOrUnitSkipsTheEvent) {
    server(m_fs);
    m_fs.add({fmt::format("{}/events/energy-ram.scale", k_pmu), "garbage\n"});
    auto d = discover();
    ASSERT_EQ(d.sensors.size(), 1U);
    EXPECT_EQ(d.sensors[0]->channels().size(), 2U);
    EXPECT_TRUE(
        std::ranges::any_of(d.notes, [](auto& n) { return n.find("energy-ram") != n.npos; }));
}

TEST_F(PerfRapl, NoPmuIsANote) {
    auto d = discover();
    EXPECT_TRUE(d.sensors.empty());
    EXPECT_TRUE(d.unreadable.empty());
    ASSERT_FALSE(d.notes.empty());
    EXPECT_NE(d.notes[0].find("no power PMU"), std::string::npos);
    EXPECT_TRUE(g_kernel.counters.empty());
}

TEST(PerfRaplRealApi, IsComplete) {
    const auto& api = real_perf_api();
    EXPECT_NE(api.open, nullptr);
    EXPECT_NE(api.read_count, nullptr);
    EXPECT_NE(api.close, nullptr);
    std::uint64_t count = 0;
    errno = 0;
    EXPECT_EQ(api.read_count(-1, &count), -1);
    EXPECT_EQ(errno, EBADF);
}

// The real syscalls on a software counter of this process (allowed up to
// perf_event_paranoid 2 with exclude_kernel); skipped where perf is blocked.
TEST(PerfRaplRealApi, CountsASoftwareEvent) {
    const auto& api = real_perf_api();
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    const int fd = api.open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        GTEST_SKIP() << "perf_event_open unavailable here: " << std::strerror(errno);
    }
    volatile double sink = 0;
    for (int i = 0; i < 1'000'000; ++i) {
        sink = sink + 1.0;
    }
    std::uint64_t ns = 0;
    EXPECT_EQ(api.read_count(fd, &ns), 0);
    EXPECT_GT(ns, 0U);
    EXPECT_EQ(api.close(fd), 0);
}

} // namespace
} // namespace jp::sensors
