// SPDX-License-Identifier: BSD-3-Clause
#include "core/clock.hpp"
#include "daemon_world.hpp"

#include <gtest/gtest.h>
#include <thread>

namespace jp::daemon {
namespace {

using test::World;

DaemonConfig fast(Nanos floor, Nanos jitter) {
    DaemonConfig c;
    c.daemon.interval = std::chrono::milliseconds{10};
    c.access.floor = floor;
    c.access.jitter = jitter;
    return c;
}

void run_for(World& w, std::chrono::milliseconds d, std::uint64_t& uj, std::uint64_t step) {
    const auto end = mono_ns() + std::chrono::duration_cast<Nanos>(d).count();
    while (mono_ns() < end) {
        uj += step;
        w.set_energy_uj(uj);
        std::this_thread::sleep_for(std::chrono::milliseconds{5});
        w.engine->tick(mono_ns());
    }
}

TEST(Engine, KeepsAHistoryAndPublishesWindowsNoShorterThanTheFloor) {
    World w{fast(std::chrono::milliseconds{100}, std::chrono::milliseconds{50})};
    ASSERT_EQ(w.engine->channels().size(), 2U);
    EXPECT_EQ(w.engine->channels()[0].name, "cpu0.package");
    EXPECT_FALSE(w.engine->channels()[1].counted) << "core is within the package";
    std::uint64_t uj = 1'000'000;
    run_for(w, std::chrono::milliseconds{700}, uj, 1000);
    const auto& h = w.engine->history(0);
    const auto& p = w.engine->published(0);
    ASSERT_GE(h.newest(), 10U);
    ASSERT_GE(p.newest(), 2U);
    EXPECT_LT(p.newest(), h.newest());
    for (auto seq = p.oldest() + 1; seq <= p.newest(); ++seq) {
        // Windows are floor + U(0, jitter) long, between the readings' own times.
        EXPECT_GE(p.at(seq).t_ns - p.at(seq - 1).t_ns, 100'000'000) << seq;
    }
    EXPECT_DOUBLE_EQ(h.at(1).value, 0.0) << "joules since the daemon started";
    EXPECT_GT(h.latest().value, 0.0);
    EXPECT_TRUE(w.engine->restricted(0));
}

TEST(Engine, AWindowIsShownOnlyAfterTheFloorAndNeverNearAFlooredExactRead) {
    constexpr std::int64_t floor = 100'000'000;
    World w{fast(Nanos{floor}, std::chrono::milliseconds{30})};
    std::uint64_t uj = 1'000'000;
    std::vector<std::int64_t> reads;
    for (int round = 0; round < 6; ++round) {
        const auto end = mono_ns() + 150'000'000;
        while (mono_ns() < end) {
            uj += 1000;
            w.set_energy_uj(uj);
            std::this_thread::sleep_for(std::chrono::milliseconds{3});
            const auto now = mono_ns();
            w.engine->tick(now);
            if (const auto& p = w.engine->published(0); !p.empty()) {
                ASSERT_LE(p.latest().t_ns, now - floor) << "shown before the floor had passed";
            }
        }
        std::vector<std::pair<std::size_t, Reading>> values;
        w.engine->read_now(values);
        ASSERT_FALSE(values.empty());
        w.engine->note_floored_read(values.front().second.t_ns, values.back().second.t_ns);
        reads.push_back(values.front().second.t_ns);
    }
    run_for(w, std::chrono::milliseconds{700}, uj, 1000);
    const auto& p = w.engine->published(0);
    ASSERT_GE(p.newest(), 2U) << "windows are published again away from the reads";
    for (auto seq = p.oldest(); seq <= p.newest(); ++seq) {
        for (const auto t : reads) {
            EXPECT_GE(std::abs(p.at(seq).t_ns - t), floor) << "window " << seq;
        }
        if (seq > p.oldest()) {
            EXPECT_GE(p.at(seq).t_ns - p.at(seq - 1).t_ns, floor) << seq;
        }
    }
}

TEST(Engine, AnExactReadIsTakenNowAndJoinsTheHistory) {
    World w{fast(std::chrono::seconds{1}, Nanos{0})};
    // +0.2 J since the start: within what a 198 W package can gain in the
    // moments since (an impossible +2 J would be a jump, not a reading)
    w.set_energy_uj(1'200'000);
    std::vector<std::pair<std::size_t, Reading>> values;
    const auto before = mono_ns();
    w.engine->read_now(values);
    ASSERT_EQ(values.size(), 2U);
    EXPECT_EQ(values[0].first, 0U);
    EXPECT_NEAR(values[0].second.value, 0.2, 1e-9);
    EXPECT_GE(values[0].second.t_ns, before);
    w.engine->tick(mono_ns());
    EXPECT_NEAR(w.engine->history(0).latest().value, 0.2, 1e-9);
}

TEST(Engine, ReadsAWrappingCounterOftenEnoughAndSaysSo) {
    auto c = fast(std::chrono::seconds{1}, Nanos{0});
    c.daemon.interval = std::chrono::seconds{30};
    World w{c, 10'000'000}; // a 10 J range: at twice the 165 W limit it wraps in 30 ms
    const auto& notes = w.engine->notes();
    const bool said = std::ranges::any_of(notes, [](const std::string& n) {
        return n.find("so that cpu0.package cannot wrap unseen") != std::string::npos;
    });
    EXPECT_TRUE(said);
    EXPECT_LE(w.engine->interval(0), std::chrono::milliseconds{16});
}

TEST(Engine, ServesNoEstimatesAndFailsWithoutSensors) {
    jp::test::FakeSysfs empty;
    empty.add({"/proc/stat", "cpu  1 0 1 100 0 0 0 0 0 0\n"});
    auto e = Engine::start(sensors::Host::with_root(empty.root()), DaemonConfig{});
    ASSERT_FALSE(e) << "users model estimates themselves";
    EXPECT_NE(e.error().message().find("no sensor can be read"), std::string::npos);
}

TEST(Engine, UnrestrictedBackendsFollowTheRules) {
    World w{fast(std::chrono::seconds{1}, Nanos{0})};
    EXPECT_TRUE(w.engine->restricted(0));
    AccessRules open = w.state->config.access;
    open.unrestricted_backends = {"powercap"};
    w.engine->set_rules(open);
    EXPECT_FALSE(w.engine->restricted(0));
}

} // namespace
} // namespace jp::daemon
