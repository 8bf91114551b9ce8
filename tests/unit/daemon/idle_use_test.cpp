// SPDX-License-Identifier: BSD-3-Clause
// Idle power learned from the quiet periods alone (daemon/idle.hpp): each period's use (the
// node's CPUs, a GPU's own utilisation, the node's power by both), the line of power on use
// where too few periods were quiet, and periods whose use cannot be followed.
#include "daemon/idle.hpp"
#include "idle_feed.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace jp::daemon {
namespace {

using idle_feed::fast;
using idle_feed::feed;
using idle_feed::k_ms;

// Feeds a package's counter and the node's CPUs (4 of them) every 100 ms for `seconds`:
// second s draws watts(s) with the CPUs use(s) busy (0..1).
template <class W, class U>
std::int64_t feed_busy(
    IdleLearner& l, std::int64_t t, double& joules, double& busy_s, int seconds, W watts, U use) {
    for (int tick = 0; tick < seconds * 10; ++tick) {
        const int s = static_cast<int>(t / (1000 * k_ms));
        joules += watts(s) * 0.1;
        busy_s += use(s) * 4 * 0.1;
        t += 100 * k_ms;
        l.add_busy(t, busy_s, 4);
        l.add(0, t, joules);
    }
    return t;
}

IdleSettings long_window() {
    auto s = fast();
    s.window = std::chrono::seconds{400}; // 400 periods: 10 quiet ones are 2.5 % of them
    return s;
}

// A node busy in 97.5 % of its periods: the 5th percentile of all of them is its busy
// power; its quiet periods alone give its idle power.
TEST(IdleLearner, ABusyNodeLearnsFromItsQuietPeriods) {
    IdleLearner l({Quantity::energy}, long_window());
    IdleLearner blind({Quantity::energy}, long_window()); // no CPU use: the old rule
    double j = 0;
    double jb = 0;
    double busy = 0;
    std::int64_t t = 0;
    l.add_busy(t, busy, 4);
    l.add(0, t, j);
    blind.add(0, t, jb);
    const auto use = [](int s) { return s % 40 == 5 ? 0.02 : 0.85 + 0.1 * ((s * 7) % 5) / 4.0; };
    const auto watts = [&](int s) { return 10 + 80 * use(s); };
    t = feed_busy(l, t, j, busy, 400, watts, use);
    feed(blind, 0, 0, jb, 400, watts);
    ASSERT_TRUE(l.idle(0));
    const auto idle = *l.idle(0);
    EXPECT_EQ(idle.basis, IdleBasis::quiet);
    EXPECT_EQ(idle.periods, 10U);
    EXPECT_NEAR(idle.watts, 10 + 80 * 0.02, 0.5);
    ASSERT_TRUE(idle.least_busy);
    EXPECT_NEAR(*idle.least_busy, 0.02, 0.011);
    EXPECT_NEAR(idle.history_s, 400, 1e-6);
    EXPECT_EQ(describe(long_window(), idle),
              "the 5th percentile of 1 s means over up to 400 s, of the 10 quiet ones (CPUs <= "
              "10 % busy)");
    // The node's CPU use unknown: every period, and the busy power it gives.
    ASSERT_TRUE(blind.idle(0));
    EXPECT_EQ(blind.idle(0)->basis, IdleBasis::all);
    EXPECT_GT(blind.idle(0)->watts, 10 + 80 * 0.8);
    EXPECT_FALSE(blind.idle(0)->least_busy);
    EXPECT_EQ(describe(long_window(), *blind.idle(0)), describe(long_window()));
}

// Never quiet, but its power follows the CPUs' use along a line: idle is where the line
// meets no use. Along no clear line (always about as busy): the percentile, said to be high.
TEST(IdleLearner, ANeverQuietNodeExtrapolatesOrSaysItsIdleMayBeHigh) {
    IdleLearner l({Quantity::energy}, fast());
    double j = 0;
    double busy = 0;
    std::int64_t t = 0;
    l.add_busy(t, busy, 4);
    l.add(0, t, j);
    const auto use = [](int s) { return 0.5 + 0.5 * ((s * 13) % 10) / 9.0; }; // 50..100 %
    t = feed_busy(
        l, t, j, busy, 100, [&](int s) { return 20 + 60 * use(s); }, use);
    ASSERT_TRUE(l.idle(0));
    auto idle = *l.idle(0);
    EXPECT_EQ(idle.basis, IdleBasis::extrapolated);
    EXPECT_NEAR(idle.watts, 20, 2.0) << "the line's power at no CPU use";
    EXPECT_NEAR(*idle.least_busy, 0.5, 0.02);
    EXPECT_NE(describe(fast(), idle).find("extrapolated to an idle node from 1 s means"),
              std::string::npos)
        << describe(fast(), idle);

    IdleLearner flat({Quantity::energy}, fast());
    j = 0;
    busy = 0;
    t = 0;
    flat.add_busy(t, busy, 4);
    flat.add(0, t, j);
    const auto steady = [](int s) { return 0.9 + 0.05 * (s % 2); };
    feed_busy(
        flat, t, j, busy, 100, [](int s) { return 70.0 + (s % 3); }, steady);
    ASSERT_TRUE(flat.idle(0));
    idle = *flat.idle(0);
    EXPECT_EQ(idle.basis, IdleBasis::busy);
    EXPECT_NEAR(idle.watts, 70, 1e-6) << "the percentile, unchanged";
    EXPECT_NE(describe(fast(), idle)
                  .find("too few with the CPUs <= 10 % busy; least 90 %: may be above idle"),
              std::string::npos)
        << describe(fast(), idle);
}

// One 1 s period per (use, watts), on a package's counter and 4 CPUs read every 100 ms.
std::optional<LearnedIdle> learn_periods(const std::vector<std::pair<double, double>>& periods) {
    IdleLearner l({Quantity::energy}, fast());
    double j = 0;
    double busy = 0;
    std::int64_t t = 0;
    l.add_busy(t, busy, 4);
    l.add(0, t, j);
    for (const auto& [use, watts] : periods) {
        for (int tick = 0; tick < 10; ++tick) {
            j += watts * 0.1;
            busy += use * 4 * 0.1;
            t += 100 * k_ms;
            l.add_busy(t, busy, 4);
            l.add(0, t, j);
        }
    }
    return l.idle(0);
}

// A line is taken only where it describes the channel: power rising with use, explaining
// most of its variance, meeting no use at 0 W or more; and a few quiet periods are not enough.
TEST(IdleLearner, OnlyAClearRisingLineAboveZeroIsExtrapolated) {
    std::vector<std::pair<double, double>> scattered;
    std::vector<std::pair<double, double>> falling;
    std::vector<std::pair<double, double>> below_zero;
    std::vector<std::pair<double, double>> few_quiet;
    for (int s = 0; s < 40; ++s) {
        const double use = 0.3 + 0.7 * ((s * 13) % 20) / 19.0;
        scattered.emplace_back(use, 100 + 40 * ((s * 7) % 5)); // no relation to use
        falling.emplace_back(use, 200 - 100 * use);
        below_zero.emplace_back(use, -30 + 100 * use);
        few_quiet.emplace_back(s % 8 == 0 ? 0.05 : use, 20 + 60 * (s % 8 == 0 ? 0.05 : use));
    }
    for (const auto* periods : {&scattered, &falling, &below_zero}) {
        const auto idle = learn_periods(*periods);
        ASSERT_TRUE(idle);
        EXPECT_EQ(idle->basis, IdleBasis::busy) << idle->watts;
    }
    // 5 quiet periods of 40 (fewer than 10): the line through all of them, which is exact.
    const auto idle = learn_periods(few_quiet);
    ASSERT_TRUE(idle);
    EXPECT_EQ(idle->basis, IdleBasis::extrapolated);
    EXPECT_NEAR(idle->watts, 20, 0.5);
}

// The node's power holds the GPUs' too: its quiet periods are those in which the CPUs and
// every GPU were quiet; a package's, the CPUs' alone.
TEST(IdleLearner, TheNodeIsQuietOnlyWhereItsCpusAndGpusAre) {
    Channel node;
    node.name = "node";
    node.domain = Domain::node;
    node.quantity = Quantity::power;
    Channel package;
    package.name = "cpu0.package";
    package.domain = Domain::cpu_package;
    package.quantity = Quantity::energy;
    Channel util;
    util.name = "gpu0.util";
    util.domain = Domain::gpu;
    util.quantity = Quantity::utilization;
    util.device = "0000:17:00.0";
    IdleLearner l({node, package, util}, long_window());
    double j = 0;
    std::int64_t t = 0;
    l.add_busy(t, 0, 4);
    l.add(1, t, j);
    l.add(2, t, 0);
    // The CPUs idle throughout; the GPU trains but for 3 s in every 40 (a BMC's power
    // readings make periods of 1.1 s: about 2 of each 3 s fall wholly inside).
    const auto gpu = [](int s) { return s % 40 >= 5 && s % 40 < 8 ? 0.0 : 0.95; };
    for (int tick = 0; tick < 4000; ++tick) {
        const int s = tick / 10;
        t += 100 * k_ms;
        j += 30 * 0.1;
        l.add_busy(t, 0, 4);
        l.add(2, t, gpu(s) * 100);
        l.add(0, t, 300 + 500 * gpu(s)); // a BMC's reading
        l.add(1, t, j);
    }
    const auto n = l.idle(0);
    ASSERT_TRUE(n);
    EXPECT_EQ(n->basis, IdleBasis::quiet);
    EXPECT_EQ(n->by, IdleUse::cpus_and_gpus);
    EXPECT_GE(n->periods, 15U);
    EXPECT_LE(n->periods, 35U) << "of about 363";
    EXPECT_NEAR(n->watts, 300, 1e-6);
    EXPECT_NE(describe(long_window(), *n).find("(CPUs and GPUs <= 10 % busy)"), std::string::npos)
        << describe(long_window(), *n);
    const auto p = l.idle(1);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->by, IdleUse::cpus);
    EXPECT_EQ(p->periods, 400U) << "every period was quiet for the CPUs";
}

Channel gpu_channel(std::string name, Quantity q, std::string device) {
    Channel c;
    c.name = std::move(name);
    c.domain = Domain::gpu;
    c.quantity = q;
    c.device = std::move(device);
    return c;
}

// A GPU is not driven by the CPUs: its quiet periods are those of its own utilisation
// (the same device), and without one every period is taken, however busy the CPUs were.
TEST(IdleLearner, AGpuIsJudgedByItsOwnUseNotTheCpus) {
    const std::vector<Channel> chans{
        gpu_channel("gpu0", Quantity::energy, "0000:17:00.0"),
        gpu_channel("gpu0.util", Quantity::utilization, "0000:17:00.0"),
        gpu_channel("gpu1", Quantity::energy, "0000:65:00.0")};
    IdleLearner l(chans, long_window());
    double j0 = 0;
    double j1 = 0;
    double cpus = 0;
    std::int64_t t = 0;
    l.add_busy(t, cpus, 4);
    l.add(0, t, j0);
    l.add(1, t, 0);
    l.add(2, t, j1);
    // GPU 0 trains 97.5 % of the time (60 W idle, 700 W busy); the CPUs are idle throughout
    // (the GPU's work is not theirs), so by them every period would look quiet.
    const auto use = [](int s) { return s % 40 == 5 ? 0.0 : 0.95; };
    for (int tick = 0; tick < 4000; ++tick) {
        const int s = tick / 10;
        j0 += (60 + 674 * use(s)) * 0.1;
        j1 += (60 + 674 * use(s)) * 0.1;
        t += 100 * k_ms;
        l.add_busy(t, cpus, 4);
        l.add(1, t, use(s) * 100); // NVML: percent busy over the last sample period
        l.add(0, t, j0);
        l.add(2, t, j1);
    }
    ASSERT_TRUE(l.idle(0));
    const auto own = *l.idle(0);
    EXPECT_EQ(own.basis, IdleBasis::quiet);
    EXPECT_EQ(own.by, IdleUse::gpu);
    EXPECT_EQ(own.periods, 10U);
    EXPECT_NEAR(own.watts, 60, 1e-6);
    EXPECT_NE(describe(long_window(), own).find("(GPU <= 10 % busy)"), std::string::npos)
        << describe(long_window(), own);
    // GPU 1 has no utilisation: every period, its busy power (the CPUs say nothing of it).
    ASSERT_TRUE(l.idle(2));
    EXPECT_EQ(l.idle(2)->basis, IdleBasis::all);
    EXPECT_NEAR(l.idle(2)->watts, 60 + 674 * 0.95, 1e-6);
    EXPECT_FALSE(l.idle(1)) << "a utilisation is no power";
    EXPECT_FALSE(follows_cpu(Domain::gpu));
    EXPECT_TRUE(follows_cpu(Domain::dram));
    EXPECT_TRUE(follows_cpu(Domain::node));
}

// CPU readings that stop (or CPUs that come and go) leave a period's use unknown rather than
// taken from a stretch that does not cover it.
TEST(IdleLearner, APeriodsCpuUseIsKnownOnlyWhereReadingsCoverIt) {
    IdleLearner l({Quantity::energy}, fast());
    double j = 0;
    std::int64_t t = 0;
    l.add_busy(t, 0, 4);
    l.add(0, t, j);
    for (int s = 0; s < 3; ++s) { // no CPU reading after the first
        j += 10;
        t += 1000 * k_ms;
        l.add(0, t, j);
    }
    l.add_busy(t, 0.2, 8); // 8 CPUs now: no period spans the change
    j += 10;
    t += 1000 * k_ms;
    l.add_busy(t, 0.6, 8);
    l.add(0, t, j);
    j += 10;
    t += 1000 * k_ms;
    l.add_busy(t, 0.5, 8); // went back: not taken
    l.add(0, t, j);
    const auto busy = l.busy(0);
    ASSERT_EQ(busy.size(), 5U);
    for (std::size_t k = 0; k < 4; ++k) {
        EXPECT_TRUE(std::isnan(busy[k])) << k;
    }
    EXPECT_TRUE(std::isnan(busy[4])) << "its only reading went back";
}

} // namespace
} // namespace jp::daemon
