// SPDX-License-Identifier: BSD-3-Clause
// Idle power learned from the daemon's history (daemon/idle.hpp): the low
// percentile of per-period mean power, given only once enough periods exist,
// never across a gap or a counter that went back; served in the channels reply
// and on /metrics.
#include "core/clock.hpp"
#include "daemon/idle.hpp"
#include "daemon/metrics.hpp"
#include "daemon_world.hpp"
#include "idle_feed.hpp"

#include <gtest/gtest.h>

namespace jp::daemon {
namespace {

using idle_feed::fast;
using idle_feed::feed;
using idle_feed::k_ms;

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
