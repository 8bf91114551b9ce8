// SPDX-License-Identifier: BSD-3-Clause
// jouleprofd (root) samples its perf counters in the kernel (eBPF) for every client. The
// machine has no RAPL PMU: the daemon's sysfs `power` PMU has the real msr PMU's type, so
// energy-pkg is the TSC (event 0), whose rate is the truth. powercap is turned off so that
// perf_rapl serves the package. A client that cannot read perf events (perf_event_paranoid 2)
// gets the counter from the daemon: the whole job's change, at the TSC's rate.
#include "bpf/kernel_sampler.hpp"
#include "daemon_fixture.hpp"
#include "trace/reader.hpp"

#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>

namespace jp::test {
namespace {

class DaemonKernel : public DaemonTest {
protected:
    // The fake `power` PMU on the real msr PMU's type; false where this machine cannot.
    bool add_power_pmu() {
        std::ifstream msr{"/sys/bus/event_source/devices/msr/type"};
        std::string type;
        if (!bpf::built_in() || !(msr >> type)) {
            return false;
        }
        const std::string pmu = "/sys/bus/event_source/devices/power";
        fs.add({pmu + "/type", type + "\n"});
        fs.add({pmu + "/cpumask", "0\n"});
        fs.add({pmu + "/events/energy-pkg", "event=0x00\n"});
        fs.add({pmu + "/events/energy-pkg.scale", "2.3283064365386962890625e-10\n"});
        fs.add({pmu + "/events/energy-pkg.unit", "Joules\n"});
        return true;
    }
    // Carol's run of a job spinning on CPU 0 for `seconds`: the package's readings.
    std::vector<TimedValue> carol_spins(const std::string& name, int seconds) {
        const auto trace = home(k_carol) + "/" + name + ".jptrace";
        const auto r = sh(as(k_carol, jp(fmt::format("run --no-live -i 10ms -o {} -- taskset -c "
                                                     "0 sh -c 'end=$(($(date +%s%N)+{}000000000)); "
                                                     "while [ $(date +%s%N) -lt $end ]; do :; "
                                                     "done'",
                                                     trace, seconds))));
        EXPECT_EQ(r.exit_code, 0) << r.out << daemon_log();
        auto reader = trace::Reader::open(trace);
        if (!reader) {
            ADD_FAILURE() << reader.error().message();
            return {};
        }
        const auto& channels = reader->channels();
        const auto it = std::ranges::find(channels, std::string{"cpu0.package"}, &Channel::name);
        if (it == channels.end()) {
            ADD_FAILURE() << "no cpu0.package";
            return {};
        }
        EXPECT_EQ(it->backend, "jouleprofd") << "served by the daemon";
        const auto run = reader->runs().at(0);
        auto s = reader->samples(run.id, static_cast<std::size_t>(it - channels.begin()));
        return s ? s->points : std::vector<TimedValue>{};
    }
};

TEST_F(DaemonKernel, TheDaemonSamplesInTheKernelAndAClientGetsTheWholeCounter) {
    if (!add_power_pmu()) {
        GTEST_SKIP() << "needs a build with the kernel sampler (JP_BPF) and an msr PMU";
    }
    start_daemon("[sensors.powercap]\nenabled = false\n[sensors.perf_rapl]\ninterval = \"10ms\"\n");
    EXPECT_NE(daemon_log().find("perf_rapl: sampled in the kernel (eBPF)"), std::string::npos)
        << daemon_log();

    // Two runs as carol: a TSC's rate is the same in both, whatever their lengths.
    std::vector<double> rates;
    for (const int length : {1, 2}) {
        const auto p = carol_spins(fmt::format("k{}", length), length);
        ASSERT_GE(p.size(), 2U);
        const double seconds = static_cast<double>(p.back().t_ns - p.front().t_ns) * 1e-9;
        ASSERT_GT(seconds, 0.5);
        rates.push_back((p.back().value - p.front().value) / seconds);
        EXPECT_GE(p.size(), 4U) << "the daemon's readings in between (as often as carol, who "
                                   "is not in the full-resolution group, may have them)";
    }
    ASSERT_EQ(rates.size(), 2U);
    EXPECT_GT(rates[0], 0.1) << "~2 GHz × 2^-32 J";
    EXPECT_NEAR(rates[0], rates[1], 0.01 * rates[1]);
    EXPECT_EQ(stop_daemon(), 0) << daemon_log();
}

// The kernel's readings reach the daemon a drain (100 ms) late and a drain's worth at once: a
// floored client (20 ms floor, up to 100 ms of jitter, a 10 ms interval) still gets a reading
// per drain, and the floor between the windows. (A window offers a channel's newest reading
// only while it is younger than its interval, its drain and the floor: Engine::choose.)
TEST_F(DaemonKernel, AFlooredClientGetsAReadingPerDrainAndTheFloorBetweenWindows) {
    if (!add_power_pmu()) {
        GTEST_SKIP() << "needs a build with the kernel sampler (JP_BPF) and an msr PMU";
    }
    // (The fixture's config opens with [access]: its keys come first.)
    start_daemon("floor = \"20ms\"\njitter = \"100ms\"\n[daemon]\ninterval = \"10ms\"\n"
                 "[sensors.powercap]\nenabled = false\n[sensors.perf_rapl]\ninterval = \"10ms\"\n");
    const auto p = carol_spins("floored", 2);
    ASSERT_GE(p.size(), 2U);
    const double seconds = static_cast<double>(p.back().t_ns - p.front().t_ns) * 1e-9;
    // One per drain (100 ms): 20 in 2 s, of which a loaded machine may lose some.
    EXPECT_GE(static_cast<double>(p.size()), 0.6 * seconds / 0.1)
        << p.size() << " readings in " << seconds << " s";
    std::string gaps;
    for (std::size_t i = 1; i < p.size(); ++i) {
        gaps += fmt::format("{} ", (p[i].t_ns - p[i - 1].t_ns) / 1'000'000);
    }
    // The windows between the edges (an edge may reuse what carol read just before: its
    // value is older than its stamp) keep the floor between them.
    for (std::size_t i = 2; i + 1 < p.size(); ++i) {
        EXPECT_GE(p[i].t_ns - p[i - 1].t_ns, 20'000'000) << "the floor between windows: " << gaps;
    }
    EXPECT_EQ(stop_daemon(), 0) << daemon_log();
}

} // namespace
} // namespace jp::test
