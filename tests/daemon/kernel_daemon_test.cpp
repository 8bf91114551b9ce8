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

using DaemonKernel = DaemonTest;

TEST_F(DaemonKernel, TheDaemonSamplesInTheKernelAndAClientGetsTheWholeCounter) {
    std::ifstream msr{"/sys/bus/event_source/devices/msr/type"};
    std::string type;
    if (!bpf::built_in() || !(msr >> type)) {
        GTEST_SKIP() << "needs a build with the kernel sampler (JP_BPF) and an msr PMU";
    }
    const std::string pmu = "/sys/bus/event_source/devices/power";
    fs.add({pmu + "/type", type + "\n"});
    fs.add({pmu + "/cpumask", "0\n"});
    fs.add({pmu + "/events/energy-pkg", "event=0x00\n"});
    fs.add({pmu + "/events/energy-pkg.scale", "2.3283064365386962890625e-10\n"});
    fs.add({pmu + "/events/energy-pkg.unit", "Joules\n"});
    start_daemon("[sensors.powercap]\nenabled = false\n[sensors.perf_rapl]\ninterval = \"10ms\"\n");
    EXPECT_NE(daemon_log().find("perf_rapl: sampled in the kernel (eBPF)"), std::string::npos)
        << daemon_log();

    // Two runs as carol: a TSC's rate is the same in both, whatever their lengths.
    std::vector<double> rates;
    for (const char* length : {"1", "2"}) {
        const auto trace = home(k_carol) + "/k" + length + ".jptrace";
        const auto r = sh(as(k_carol, jp(fmt::format("run --no-live -i 10ms -o {} -- taskset -c "
                                                     "0 sh -c 'end=$(($(date +%s%N)+{}000000000)); "
                                                     "while [ $(date +%s%N) -lt $end ]; do :; "
                                                     "done'",
                                                     trace, length))));
        ASSERT_EQ(r.exit_code, 0) << r.out << daemon_log();
        auto reader = trace::Reader::open(trace);
        ASSERT_TRUE(reader) << reader.error().message();
        const auto& channels = reader->channels();
        const auto it = std::ranges::find(channels, std::string{"cpu0.package"}, &Channel::name);
        ASSERT_NE(it, channels.end());
        EXPECT_EQ(it->backend, "jouleprofd") << "served by the daemon";
        const auto run = reader->runs().at(0);
        auto s = reader->samples(run.id, static_cast<std::size_t>(it - channels.begin()));
        ASSERT_TRUE(s && s->points.size() >= 2);
        const auto& p = s->points;
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

} // namespace
} // namespace jp::test
