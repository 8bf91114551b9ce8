// SPDX-License-Identifier: BSD-3-Clause
// The whole path a RAPL node takes, on a machine without RAPL: a sysfs `power` PMU whose type
// is the real msr PMU's and whose energy-pkg is its tsc (event 0), so perf_rapl's discovery
// opens a real counter with a known rate, samples it in the kernel, and the sampler records
// it. Root only (the kernel sampler's need); KernelRefusal.* covers other users.
#include "bpf/kernel_sampler.hpp"
#include "busy_cpus.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "fake_sysfs.hpp"
#include "perf_counters.hpp"
#include "sampler/sampler.hpp"
#include "sensors/perf_rapl/kernel_sensor.hpp"
#include "sensors/perf_rapl/perf_rapl.hpp"
#include "sensors/registry.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace jp {
namespace {

constexpr std::string_view k_scale = "2.3283064365386962890625e-10"; // RAPL's 2^-32 J

class KernelPath : public ::testing::Test {
protected:
    void SetUp() override {
        if (!bpf::built_in()) {
            GTEST_SKIP() << "built without the kernel sampler (JP_BPF)";
        }
        if (::geteuid() != 0) {
            GTEST_SKIP() << "the kernel sampler needs root; KernelRefusal.* covers other users";
        }
        const auto msr = test::msr_pmu_type();
        if (!msr) {
            GTEST_SKIP() << "no msr PMU on this kernel to stand in for RAPL's";
        }
        const std::string pmu = "/sys/bus/event_source/devices/power";
        m_fs.add({pmu + "/type", std::to_string(*msr) + "\n"});
        m_fs.add({pmu + "/cpumask", "0\n"});
        m_fs.add({pmu + "/events/energy-pkg", "event=0x00\n"});
        m_fs.add({pmu + "/events/energy-pkg.scale", std::string{k_scale} + "\n"});
        m_fs.add({pmu + "/events/energy-pkg.unit", "Joules\n"});
        m_host = sensors::Host::with_root(m_fs.root());
        m_host.config = &m_config;
    }

    struct Run {
        std::vector<trace::SampleRecord> samples;
        std::vector<trace::Event> events;
        std::int64_t begin = 0;
        std::int64_t end = 0;
        std::vector<std::int64_t> read_times;
    };
    static Run run(std::vector<std::unique_ptr<sensors::Sensor>> sensors,
                   const SamplerConfig& config,
                   std::chrono::milliseconds length) {
        std::vector<Channel> table;
        for (const auto& s : sensors) {
            table.insert(table.end(), s->channels().begin(), s->channels().end());
        }
        const test::BusyCpus busy{{0}};
        Sampler sampler{std::move(sensors), table, config, mono_ns()};
        Run r;
        r.begin = sampler.begin(1);
        std::this_thread::sleep_for(length);
        r.end = sampler.end();
        sampler.drain(r.samples, r.events);
        r.read_times = sampler.read_times();
        return r;
    }

    // The tsc opened on opened_on, said to be CPU 0's (where the tick reads it), sampled in
    // the kernel with a ring of ring_bytes (0: the default), as the channel perf_rapl found.
    std::unique_ptr<sensors::Sensor> tsc_in_kernel(int opened_on, std::size_t ring_bytes) {
        auto found = sensors::perf_rapl::discover(m_host);
        EXPECT_EQ(found.sensors.size(), 1U);
        if (found.sensors.size() != 1) {
            return nullptr;
        }
        const int fd = test::open_cpu_counter(*test::msr_pmu_type(), 0, opened_on);
        EXPECT_GE(fd, 0);
        if (fd < 0) {
            return nullptr;
        }
        std::vector<sensors::perf_rapl::Counter> counters{{fd, std::stod(std::string{k_scale}), 0}};
        auto plain = std::make_unique<sensors::perf_rapl::PerfRaplSensor>(
            std::vector<Channel>{found.sensors[0]->channels()[0]}, std::move(counters),
            sensors::real_perf_api());
        std::string note;
        auto sensor = sensors::perf_rapl::sample_in_kernel(std::move(plain), ring_bytes, note);
        EXPECT_EQ(note, "");
        return sensor;
    }

    test::FakeSysfs m_fs;
    Config m_config;
    sensors::Host m_host;
};

TEST_F(KernelPath, DiscoverySamplesInTheKernelAndEachReadingIsTheCounterAtItsTime) {
    auto found = sensors::perf_rapl::discover(m_host);
    ASSERT_EQ(found.sensors.size(), 1U);
    EXPECT_NE(std::ranges::find(found.notes, "perf_rapl: sampled in the kernel (eBPF)"),
              found.notes.end());
    found.sensors[0]->prepare(std::chrono::milliseconds{1});
    EXPECT_TRUE(found.sensors[0]->batched()) << "drained, not read from a timer";
    EXPECT_EQ(found.sensors[0]->channels()[0].source,
              "perf power/energy-pkg/ cpu 0, sampled in the kernel (eBPF)");
    const auto r = run(std::move(found.sensors), SamplerConfig{std::chrono::milliseconds{1}, {}},
                       std::chrono::seconds{2});
    ASSERT_GE(r.samples.size(), 2U);
    const auto& first = r.samples.front();
    const auto& last = r.samples.back();
    EXPECT_TRUE(first.flags & trace::k_flag_edge);
    EXPECT_TRUE(last.flags & trace::k_flag_edge);
    // The truth is the line between the two edges, read from user space: the TSC's rate.
    const double per_ns = (last.value - first.value) / static_cast<double>(last.t_ns - first.t_ns);
    const double one_tick = per_ns * 1e6;
    std::size_t inside = 0;
    for (std::size_t i = 1; i + 1 < r.samples.size(); ++i) {
        const auto& s = r.samples[i];
        ASSERT_GT(s.t_ns, r.samples[i - 1].t_ns);
        EXPECT_EQ(s.flags, 0) << "a tick's reading, not an edge or a jump";
        const double truth = first.value + per_ns * static_cast<double>(s.t_ns - first.t_ns);
        ASSERT_NEAR(s.value, truth, one_tick) << "reading " << i;
        ++inside;
    }
    const double ticks = static_cast<double>(r.end - r.begin) * 1e-6;
    EXPECT_GE(static_cast<double>(inside), 0.98 * ticks) << "a reading per ms of the run";
    ASSERT_EQ(r.read_times.size(), 1U);
    EXPECT_GT(r.read_times[0], 0) << "the kernel's read time is the channel's";
    EXPECT_LT(r.read_times[0], 1'000'000);
    EXPECT_TRUE(r.events.empty());
}

TEST_F(KernelPath, TurnedOffInTheConfigTheCountersAreReadFromTheTimer) {
    m_config.kernel_sampling = false;
    auto found = sensors::perf_rapl::discover(m_host);
    ASSERT_EQ(found.sensors.size(), 1U);
    EXPECT_NE(std::ranges::find(found.notes, "perf_rapl: read from a timer ([sensors.perf_rapl] "
                                             "kernel_sampling = false)"),
              found.notes.end());
    found.sensors[0]->prepare(std::chrono::milliseconds{10});
    EXPECT_FALSE(found.sensors[0]->batched());
    const auto r = run(std::move(found.sensors), SamplerConfig{std::chrono::milliseconds{10}, {}},
                       std::chrono::milliseconds{300});
    EXPECT_GE(r.samples.size(), 20U);
    EXPECT_LE(r.samples.size(), 40U);
}

TEST_F(KernelPath, ARingTooSmallForTheDrainIsAnEventAndTheEnergyStaysExact) {
    std::vector<std::unique_ptr<sensors::Sensor>> sensors;
    sensors.push_back(tsc_in_kernel(0, 4096));
    ASSERT_NE(sensors.back(), nullptr);
    SamplerConfig config{std::chrono::milliseconds{1}, {}};
    config.drain_interval = std::chrono::seconds{1}; // a page holds ~70 ms of it
    const auto r = run(std::move(sensors), config, std::chrono::milliseconds{1500});
    const auto lost = std::ranges::find(r.events, std::string{"lost"}, &trace::Event::kind);
    ASSERT_NE(lost, r.events.end());
    EXPECT_NE(lost->detail.find("cpu0.package: "), std::string::npos) << lost->detail;
    ASSERT_GE(r.samples.size(), 2U);
    // The end edge is read directly: the run's energy is the counter's, gaps or not.
    const double per_ns = std::stod(std::string{k_scale}) * 2.0; // ~2 GHz TSC, loosely
    EXPECT_GT(r.samples.back().value, 0.5 * per_ns * static_cast<double>(r.end - r.begin));
    EXPECT_LT(r.samples.back().value, 4.0 * per_ns * static_cast<double>(r.end - r.begin));
}

TEST_F(KernelPath, AsRootTheKernelSampledCountersServeWhatPowercapFound) {
    test::add_rapl_zone(m_fs, "intel-rapl:0", "package-0", 1'000'000);
    m_host.is_root = true;
    const auto names = [](const sensors::Discovery& d) {
        std::vector<std::string> out;
        for (const auto& s : d.sensors) {
            for (const auto& c : s->channels()) {
                out.push_back(std::string{s->backend()} + ":" + c.name);
            }
        }
        return out;
    };
    const auto kernel = sensors::discover_all(m_host);
    EXPECT_EQ(names(kernel), (std::vector<std::string>{"perf_rapl:cpu0.package"}));
    EXPECT_NE(std::ranges::find(kernel.notes, "powercap: RAPL read through perf_rapl instead, "
                                              "sampled in the kernel (eBPF)"),
              kernel.notes.end());

    m_config.kernel_sampling = false; // powercap's files from the timer, as before
    const auto timer = sensors::discover_all(m_host);
    EXPECT_EQ(names(timer), (std::vector<std::string>{"powercap:cpu0.package"}));
    EXPECT_NE(std::ranges::find(timer.notes, "perf_rapl: not needed, powercap RAPL is readable"),
              timer.notes.end());

    m_config.kernel_sampling = true;
    m_host.is_root = false; // another user: the timer, without trying
    EXPECT_EQ(names(sensors::discover_all(m_host)),
              (std::vector<std::string>{"powercap:cpu0.package"}));
}

// Root whose capability set lacks CAP_BPF (a container's, or a systemd unit's bounding set;
// CAP_PERFMON kept, so the counters open): powercap's files are read from the timer, and the
// note says why the kernel was not used.
TEST_F(KernelPath, RootWithoutCapBpfIsToldWhyPowercapIsReadFromTheTimer) {
    test::add_rapl_zone(m_fs, "intel-rapl:0", "package-0", 1'000'000);
    m_host.is_root = true;
    const auto child = test::in_child([this] {
        std::string said = test::drop_capabilities({CAP_BPF, CAP_SYS_ADMIN});
        if (said.empty()) {
            for (const auto& n : sensors::discover_all(m_host).notes) {
                said += n + "\n";
            }
        }
        return std::pair{said, 0};
    });
    ASSERT_TRUE(WIFEXITED(child.status)) << child.said;
    const auto& notes = child.said;
    EXPECT_NE(notes.find("perf_rapl: not needed, powercap RAPL is readable from a timer; not "
                         "sampled in the kernel: eBPF "),
              std::string::npos)
        << notes;
    EXPECT_NE(notes.find("this root process lacks one of them"), std::string::npos) << notes;
}

TEST_F(KernelPath, ACounterTheKernelCannotReadIsReadDirectlyAfterTenFailures) {
    // Opened on CPU 1 but said to be CPU 0's: the tick on CPU 0 cannot read it (-EINVAL), as
    // when a counter's CPU goes offline and the kernel moves it.
    if (::sysconf(_SC_NPROCESSORS_ONLN) < 2) {
        GTEST_SKIP() << "needs two CPUs";
    }
    auto sensor = tsc_in_kernel(1, 0);
    ASSERT_NE(sensor, nullptr);
    sensor->prepare(std::chrono::milliseconds{1});
    ASSERT_TRUE(sensor->batched());
    const test::BusyCpus busy{{0}};
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
    std::vector<sensors::Stamped> out;
    std::vector<std::uint64_t> lost;
    sensor->drain(out, lost);
    ASSERT_GE(out.size(), 10U);
    EXPECT_TRUE(std::ranges::all_of(out, [](const sensors::Stamped& s) {
        return s.value.status == sensors::ReadStatus::retry;
    })) << "each failed kernel read is a retry";
    EXPECT_FALSE(sensor->batched()) << "given up on the kernel after ten failures in a row";
    out.clear();
    sensor->drain(out, lost);
    ASSERT_EQ(out.size(), 1U) << "one direct read a drain";
    EXPECT_EQ(out[0].value.status, sensors::ReadStatus::ok);
    EXPECT_GT(out[0].value.t_mono_ns, 0);
    EXPECT_GT(out[0].value.value, 0);
}

} // namespace
} // namespace jp
