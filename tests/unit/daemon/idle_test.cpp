// SPDX-License-Identifier: BSD-3-Clause
// Idle power learned from the daemon's history (daemon/idle.hpp): the low
// percentile of per-period mean power, given only once enough periods exist,
// never across a gap or a counter that went back; served in the channels reply
// and on /metrics.
#include "core/clock.hpp"
#include "daemon/idle.hpp"
#include "daemon/metrics.hpp"
#include "daemon_world.hpp"

#include <cmath>
#include <gtest/gtest.h>

namespace jp::daemon {
namespace {

constexpr std::int64_t k_ms = 1'000'000;

IdleSettings fast() {
    IdleSettings s;
    s.period = std::chrono::seconds{1};
    s.window = std::chrono::seconds{100};
    s.min_history = std::chrono::seconds{20};
    s.percentile = 5;
    return s;
}

// Feeds an energy counter read every 100 ms for `seconds`, drawing watts(second).
template <class F>
std::int64_t
feed(IdleLearner& l, std::size_t ch, std::int64_t t, double& joules, int seconds, F watts) {
    for (int tick = 0; tick < seconds * 10; ++tick) {
        joules += watts(tick / 10) * 0.1;
        t += 100 * k_ms;
        l.add(ch, t, joules);
    }
    return t;
}

TEST(IdleLearner, TheLowPercentileOfPeriodMeansOnceEnoughExist) {
    IdleLearner l({Quantity::energy, Quantity::utilization}, fast());
    double j = 0;
    std::int64_t t = 0;
    l.add(0, t, j);
    // 10 W, but busy (60 W) in 17 of every 20 seconds: 15 % of the periods are idle.
    const auto watts = [](int s) { return s % 20 < 3 ? 10.0 : 60.0; };
    t = feed(l, 0, t, j, 19, watts);
    EXPECT_FALSE(l.idle(0)) << "19 periods: not yet the 20 needed";
    t = feed(l, 0, t, j, 41, watts);
    const auto idle = l.idle(0);
    ASSERT_TRUE(idle);
    EXPECT_NEAR(idle->watts, 10.0, 1e-6);
    EXPECT_EQ(idle->periods, 60U);
    EXPECT_NEAR(idle->history_s, 60, 1e-9);
    EXPECT_FALSE(l.idle(1)); // utilisation is no power
    EXPECT_FALSE(l.idle(7));
}

TEST(IdleLearner, AWindowKeepsOnlyTheRecentPeriods) {
    IdleLearner l({Quantity::energy}, fast());
    double j = 0;
    std::int64_t t = 0;
    l.add(0, t, j);
    t = feed(l, 0, t, j, 100, [](int) { return 5.0; });
    ASSERT_NEAR(l.idle(0)->watts, 5.0, 1e-6);
    // The node idles at 8 W from now on (its baseline moved: a new BIOS setting).
    t = feed(l, 0, t, j, 100, [](int) { return 8.0; });
    EXPECT_NEAR(l.idle(0)->watts, 8.0, 1e-6);
    EXPECT_EQ(l.idle(0)->periods, 100U);
}

TEST(IdleLearner, NoMeanAcrossAGapOrACounterThatWentBack) {
    IdleLearner l({Quantity::energy}, fast());
    double j = 1000;
    std::int64_t t = 0;
    l.add(0, t, j);
    t = feed(l, 0, t, j, 30, [](int) { return 20.0; });
    // 10 s without readings while 0 W would otherwise seem drawn; then a counter that
    // restarted lower (a daemon restart's view, a reset): neither makes a period.
    t += 10'000 * k_ms;
    l.add(0, t, j);
    j = 0;
    t = feed(l, 0, t, j, 30, [](int) { return 20.0; });
    const auto idle = l.idle(0);
    ASSERT_TRUE(idle);
    EXPECT_NEAR(idle->watts, 20.0, 1e-6);
    EXPECT_LE(idle->periods, 60U);
}

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

// Past 10,000 periods the value is learned again every size/10,000 closes, never later.
TEST(IdleLearner, ALargeWindowIsLearnedAgainWithinItsStride) {
    auto s = fast();
    s.window = std::chrono::seconds{20'000}; // 20,000 periods: every second close
    s.min_history = std::chrono::seconds{10};
    IdleLearner l({Quantity::energy}, s);
    std::int64_t t = 0;
    double j = 0;
    l.add(0, t, j);
    const auto period = [&](double watts) { // a reading a second: one period closed
        j += watts;
        t += 1000 * k_ms;
        l.add(0, t, j);
    };
    const std::vector<double> full(20'000, 100.0); // a full window, as a restart brings it
    ASSERT_EQ(l.restore(0, full), 20'000U);
    ASSERT_NEAR(l.idle(0)->watts, 100, 1e-9);
    // The node's floor drops to 40 W: 5 % of the window (1,000 periods) makes it the 5th
    // percentile; learned again within 2 closes of that.
    for (int k = 0; k < 999; ++k) {
        period(40);
    }
    EXPECT_NEAR(l.idle(0)->watts, 100, 1e-9) << "999 of 20,000 at 40 W: not yet";
    period(40);
    period(40);
    EXPECT_NEAR(l.idle(0)->watts, 40, 1e-9);
}

TEST(IdleLearner, PowerReadingsAreAveragedPerPeriod) {
    auto s = fast();
    s.percentile = 50;
    s.min_history = std::chrono::seconds{4};
    IdleLearner l({Quantity::power}, s);
    std::int64_t t = 0;
    for (int tick = 0; tick < 60; ++tick) {
        t += 100 * k_ms;
        l.add(0, t, tick % 2 == 0 ? 100.0 : 140.0); // a BMC's readings about 120 W
    }
    const auto idle = l.idle(0);
    ASSERT_TRUE(idle);
    EXPECT_NEAR(idle->watts, 120.0, 5.0);
}

TEST(IdleLearner, ServedInTheChannelsReplyAndOnMetrics) {
    DaemonConfig config;
    config.daemon.interval = std::chrono::milliseconds{10};
    config.daemon.idle.period = std::chrono::milliseconds{100};
    config.daemon.idle.window = std::chrono::seconds{10};
    config.daemon.idle.min_history = std::chrono::milliseconds{300};
    config.access.floor = std::chrono::milliseconds{100}; // periods no shorter than a window
    config.access.jitter = std::chrono::milliseconds{0};
    test::World w{config};
    auto c = w.connect(1000);
    ASSERT_EQ(w.call(*c, {{"op", "hello"}, {"versions", {1}}})["ok"], true);
    auto list = w.call(*c, {{"op", "channels"}})["channels"];
    EXPECT_TRUE(list.at(0).at("idle").is_null()) << "nothing learned yet";
    // The fake package draws nothing (its counter stands still): 0 W idle, once learned.
    for (int i = 0; i < 100 && !w.engine->idle(0); ++i) {
        ::usleep(10'000);
        w.engine->tick(mono_ns());
    }
    ASSERT_TRUE(w.engine->idle(0)) << "learned within a second";
    list = w.call(*c, {{"op", "channels"}})["channels"];
    const auto& idle = list.at(0).at("idle");
    EXPECT_NEAR(idle.at("watts").get<double>(), 0.0, 1e-9);
    EXPECT_EQ(idle.at("how"), "the 5th percentile of 100 ms means over up to 10 s");
    EXPECT_EQ(idle.at("percentile"), 5);
    EXPECT_NEAR(idle.at("period_s").get<double>(), 0.1, 1e-12);
    EXPECT_GE(idle.at("periods").get<int>(), 3);
    const auto text = metrics_text(*w.state, mono_ns());
    EXPECT_NE(text.find("# TYPE jouleprof_idle_watts gauge"), std::string::npos);
    EXPECT_NE(text.find("jouleprof_idle_watts{channel=\"cpu0.package\""), std::string::npos);
    EXPECT_NE(text.find("jouleprof_idle_history_seconds{channel=\"cpu0.package\""),
              std::string::npos);

    // Periods shorter than a floored window would step below the floor: floored callers and
    // /metrics get none; a full-resolution caller (root) still does.
    w.state->config.access.floor = std::chrono::seconds{1};
    list = w.call(*c, {{"op", "channels"}})["channels"];
    EXPECT_TRUE(list.at(0).at("idle").is_null());
    EXPECT_EQ(metrics_text(*w.state, mono_ns()).find("jouleprof_idle_watts"), std::string::npos);
    auto root = w.connect(0);
    ASSERT_EQ(w.call(*root, {{"op", "hello"}, {"versions", {1}}})["ok"], true);
    EXPECT_TRUE(w.call(*root, {{"op", "channels"}})["channels"].at(0).at("idle").is_object());
}

TEST(IdleLearner, DescribedInWords) {
    IdleSettings s;
    EXPECT_EQ(describe(s), "the 5th percentile of 1 min means over up to 24 h");
    for (const auto& [p, word] :
         {std::pair{1, "1st"}, std::pair{2, "2nd"}, std::pair{3, "3rd"}, std::pair{11, "11th"},
          std::pair{12, "12th"}, std::pair{21, "21st"}, std::pair{50, "50th"},
          std::pair{0, "0th"}}) {
        s.percentile = p;
        EXPECT_NE(describe(s).find(std::string{"the "} + word + " percentile"), std::string::npos)
            << describe(s);
    }
    s.period = std::chrono::milliseconds{1500};
    s.window = std::chrono::seconds{90};
    EXPECT_EQ(describe(s).substr(describe(s).find(" of ")), " of 1500 ms means over up to 90 s");
}

} // namespace
} // namespace jp::daemon
