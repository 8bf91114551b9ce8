// SPDX-License-Identifier: BSD-3-Clause
// The idle history kept across restarts (daemon/idle_store.hpp): what a restart takes back
// (the same channels, the means still inside the window, none learned with another period),
// what it refuses (damaged files, directories or files another user could have written),
// and the file written whole in a directory of its own.
#include "daemon/idle_store.hpp"
#include "fake_sysfs.hpp"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

namespace jp::daemon {
namespace {

constexpr std::int64_t k_s = 1'000'000'000;
constexpr std::int64_t k_now = 1'800'000'000; // the wall clock, seconds

IdleSettings settings() {
    IdleSettings s;
    s.period = std::chrono::seconds{1};
    s.window = std::chrono::seconds{10};
    s.min_history = std::chrono::seconds{3};
    s.percentile = 0; // the lowest mean: easy to follow by hand
    return s;
}

Channel channel(std::string name, std::string device) {
    Channel c;
    c.name = std::move(name);
    c.quantity = Quantity::energy;
    c.backend = "powercap";
    c.device = std::move(device);
    return c;
}

// One 1 s period per watts value, on an energy counter.
void learn(IdleLearner& l, std::size_t ch, const std::vector<double>& watts) {
    double j = 0;
    std::int64_t t = 0;
    l.add(ch, t, j);
    for (const double w : watts) {
        j += w;
        t += k_s;
        l.add(ch, t, j);
    }
}

TEST(IdleStore, ARestartTakesBackEveryMeanOfTheSameChannels) {
    const std::vector<Channel> chans{channel("cpu0.package", "rapl:package:0"),
                                     channel("cpu1.package", "rapl:package:1")};
    IdleLearner before({Quantity::energy, Quantity::energy}, settings());
    learn(before, 0, {50, 40, 30, 45});
    learn(before, 1, {70, 80});
    const auto text = idle_json(before, chans, k_now);

    IdleLearner after({Quantity::energy, Quantity::energy}, settings());
    const auto line = restore_idle(text, after, chans, k_now);
    ASSERT_TRUE(line) << line.error().message();
    EXPECT_EQ(*line, "idle history: 6 means of 2 channels taken from a file written 0 s ago");
    EXPECT_EQ(after.means(0), (std::vector<double>{50, 40, 30, 45}));
    EXPECT_EQ(after.means(1), (std::vector<double>{70, 80}));
    ASSERT_TRUE(after.idle(0));
    EXPECT_DOUBLE_EQ(after.idle(0)->watts, 30);
    EXPECT_EQ(after.idle(0)->periods, 4U);
    EXPECT_FALSE(after.idle(1)) << "2 periods, 3 needed: no more known than before the restart";
}

TEST(IdleStore, MeansThatLeftTheWindowWhileTheDaemonWasDownAreDropped) {
    const std::vector<Channel> chans{channel("cpu0.package", "rapl:package:0")};
    IdleLearner before({Quantity::energy}, settings());
    learn(before, 0, {10, 20, 30, 40, 50, 60, 70, 80, 90, 100});
    const auto text = idle_json(before, chans, k_now);
    // Down for 6 s of a 10 s window: the 4 newest means are still inside it.
    IdleLearner after({Quantity::energy}, settings());
    ASSERT_TRUE(restore_idle(text, after, chans, k_now + 6));
    EXPECT_EQ(after.means(0), (std::vector<double>{70, 80, 90, 100}));
    // Down longer than the window: nothing.
    IdleLearner later({Quantity::energy}, settings());
    const auto line = restore_idle(text, later, chans, k_now + 11);
    ASSERT_TRUE(line);
    EXPECT_TRUE(later.means(0).empty()) << *line;
    // A clock set back counts as no time at all.
    IdleLearner back({Quantity::energy}, settings());
    ASSERT_TRUE(restore_idle(text, back, chans, k_now - 3600));
    EXPECT_EQ(back.means(0).size(), 10U);
}

TEST(IdleStore, WhatWasLearnedSinceTheStartComesAfterTheRestoredMeans) {
    const std::vector<Channel> chans{channel("cpu0.package", "rapl:package:0")};
    IdleLearner before({Quantity::energy}, settings());
    learn(before, 0, {10, 20, 30, 40, 50, 60, 70, 80});
    IdleLearner after({Quantity::energy}, settings());
    learn(after, 0, {5, 6, 7}); // learned before the file was read
    ASSERT_TRUE(restore_idle(idle_json(before, chans, k_now), after, chans, k_now));
    // 10 fit: 7 of the restored (the newest) before the 3 learned since.
    EXPECT_EQ(after.means(0), (std::vector<double>{20, 30, 40, 50, 60, 70, 80, 5, 6, 7}));
    EXPECT_DOUBLE_EQ(after.idle(0)->watts, 5);
}

TEST(IdleStore, AnotherDeviceOrPeriodIsNotTheSameHistory) {
    IdleLearner before({Quantity::energy}, settings());
    learn(before, 0, {50, 40, 30});
    const auto text = idle_json(before, {channel("cpu0.package", "rapl:package:0")}, k_now);
    IdleLearner moved({Quantity::energy}, settings());
    const auto line =
        restore_idle(text, moved, {channel("cpu0.package", "rapl:package:9")}, k_now + 120);
    ASSERT_TRUE(line);
    EXPECT_EQ(*line, "idle history: 0 means of 0 channels taken from a file written 2 min ago; 1 "
                     "channel not on this node now");
    EXPECT_TRUE(moved.means(0).empty());

    auto other = settings(); // 1 s periods make no whole 1.5 s one: not this history
    other.period = std::chrono::milliseconds{1500};
    other.window = std::chrono::seconds{15};
    IdleLearner slower({Quantity::energy}, other);
    const auto said =
        restore_idle(text, slower, {channel("cpu0.package", "rapl:package:0")}, k_now);
    ASSERT_FALSE(said);
    EXPECT_EQ(said.error().kind, ErrorKind::unsupported);
    EXPECT_EQ(said.error().message(), "idle history: learned over periods of 1 s, not 1.5 s");
    EXPECT_TRUE(slower.means(0).empty());
    EXPECT_EQ(idle_file_period(text), k_s);
    EXPECT_EQ(idle_file_for(k_s), "idle-history.1000000000ns.json");
}

// Periods of 1 s taken two at a time make 2 s ones: each pair's mean, from the newest (the
// oldest left alone is dropped), their use known only where both were.
TEST(IdleStore, AHistoryOfShorterPeriodsIsCombinedIntoLongerOnes) {
    IdleLearner before({Quantity::energy}, settings());
    learn(before, 0, {50, 40, 30, 20, 10});
    auto j = nlohmann::json::parse(
        idle_json(before, {channel("cpu0.package", "rapl:package:0")}, k_now));
    j["channels"][0]["busy"] = nlohmann::json::parse("[0.1, 0.2, null, 0.4, 0.6]");
    auto longer = settings();
    longer.period = std::chrono::seconds{2};
    longer.window = std::chrono::seconds{20};
    IdleLearner after({Quantity::energy}, longer);
    const auto line =
        restore_idle(j.dump(), after, {channel("cpu0.package", "rapl:package:0")}, k_now);
    ASSERT_TRUE(line) << line.error().message();
    EXPECT_EQ(*line, "idle history: 2 means of 1 channel taken from a file written 0 s ago "
                     "(learned over periods of 1 s: every 2 combined into one of 2 s)");
    EXPECT_EQ(after.means(0), (std::vector<double>{35, 15}));
    ASSERT_EQ(after.busy(0).size(), 2U);
    EXPECT_TRUE(std::isnan(after.busy(0)[0])) << "0.2 and one unknown";
    EXPECT_DOUBLE_EQ(after.busy(0)[1], 0.5);
}

TEST(IdleStore, ADamagedFileIsRefusedInOneLine) {
    const std::vector<Channel> chans{channel("cpu0.package", "rapl:package:0")};
    IdleLearner l({Quantity::energy}, settings());
    const auto good = nlohmann::json::parse(idle_json(l, chans, k_now));
    auto with = [&](const char* key, nlohmann::json v) {
        auto j = good;
        j["channels"] = {{{"name", "cpu0.package"},
                          {"quantity", "energy"},
                          {"backend", "powercap"},
                          {"device", "rapl:package:0"},
                          {"means", {1.0, 2.0}}}};
        j["channels"][0][key] = std::move(v);
        return j.dump();
    };
    for (const auto& text :
         {std::string{"not json"}, std::string{"[]"}, std::string{R"({"format":"x"})"},
          good.dump().replace(good.dump().find("\"period_ns\""), 11, "\"period_xx\""),
          with("means", {1.0, -2.0}), with("means", "many"), with("name", 7),
          with("device", nullptr), with("means", std::vector<double>(100'001, 1.0)),
          // A CPU use per mean, each 0..1 or null.
          with("busy", {0.5}), with("busy", {0.5, 1.5}), with("busy", {0.5, "x"}),
          with("busy", "quiet"),
          // Wrong types at the top (a review: the daemon aborted at start on these).
          std::string{R"({"format":5,"version":1})"},
          std::string{R"({"format":"jouleprofd-idle","version":"1"})"},
          good.dump().replace(good.dump().find("\"saved_unix_s\":") + 15,
                              std::to_string(k_now).size(), "-9223372036854775808")}) {
        const auto r = restore_idle(text, l, chans, k_now);
        ASSERT_FALSE(r) << text.substr(0, 200);
        EXPECT_EQ(r.error().message().find('\n'), std::string::npos);
        EXPECT_NE(r.error().message().find("not a jouleprofd idle history"), std::string::npos)
            << r.error().message();
    }
    EXPECT_TRUE(l.means(0).empty()) << "nothing taken from a refused file";
}

// A channel missing at one start (a GPU library that failed to load) keeps its history: the
// next save writes it again, less what left the window meanwhile, and a later start that has
// the channel takes it back.
TEST(IdleStore, AChannelAbsentAtOneStartKeepsItsHistory) {
    const std::vector<Channel> both{channel("cpu0.package", "rapl:package:0"),
                                    channel("cpu1.package", "rapl:package:1")};
    const std::vector<Channel> one{both[0]};
    IdleLearner before({Quantity::energy, Quantity::energy}, settings());
    learn(before, 0, {50, 40, 30, 45});
    learn(before, 1, {70, 80, 60, 90});
    const auto text = idle_json(before, both, k_now);

    IdleLearner without({Quantity::energy}, settings());
    std::vector<AbsentIdle> absent;
    const auto line = restore_idle(text, without, one, k_now + 2, &absent);
    ASSERT_TRUE(line) << line.error().message();
    EXPECT_NE(line->find("1 channel not on this node now (kept in the file until their means "
                         "leave the window)"),
              std::string::npos)
        << *line;
    ASSERT_EQ(absent.size(), 1U);
    EXPECT_EQ(absent[0].name, "cpu1.package");
    // Saved 8 s after the first file: of a 10 s window, the 2 newest of its 4 means are left.
    const auto again = idle_json(without, one, k_now + 8, absent);
    IdleLearner after({Quantity::energy, Quantity::energy}, settings());
    ASSERT_TRUE(restore_idle(again, after, both, k_now + 8));
    EXPECT_EQ(after.means(1), (std::vector<double>{60, 90}));
    EXPECT_EQ(after.means(0), (std::vector<double>{50, 40, 30, 45})) << "the present one whole";
    // Past the window, an absent channel is no longer written.
    const auto late = nlohmann::json::parse(idle_json(without, one, k_now + 20, absent));
    EXPECT_EQ(late["channels"].size(), 1U);
}

// Each period's CPU use goes with its mean, so a restarted daemon still knows its quiet
// periods; a file from before it was kept is taken with the use unknown.
TEST(IdleStore, EachPeriodsCpuUseIsKeptWithItsMean) {
    const std::vector<Channel> chans{channel("cpu0.package", "rapl:package:0")};
    IdleLearner before({Quantity::energy}, settings());
    double j = 0;
    std::int64_t t = 0;
    before.add_busy(t, 0, 2);
    before.add(0, t, j);
    double busy_s = 0;
    for (const double use : {0.9, 0.05, 0.95}) { // 2 CPUs, 1 s periods
        j += 10 + 60 * use;
        busy_s += 2 * use;
        t += k_s;
        before.add_busy(t, busy_s, 2);
        before.add(0, t, j);
    }
    const auto text = idle_json(before, chans, k_now);
    IdleLearner after({Quantity::energy}, settings());
    ASSERT_TRUE(restore_idle(text, after, chans, k_now));
    const auto busy = after.busy(0);
    ASSERT_EQ(busy.size(), 3U) << text;
    EXPECT_NEAR(busy[0], 0.9, 1e-9);
    EXPECT_NEAR(busy[1], 0.05, 1e-9);
    EXPECT_NEAR(busy[2], 0.95, 1e-9);

    auto old = nlohmann::json::parse(text);
    old["channels"][0].erase("busy");
    IdleLearner from_old({Quantity::energy}, settings());
    ASSERT_TRUE(restore_idle(old.dump(), from_old, chans, k_now));
    ASSERT_EQ(from_old.busy(0).size(), 3U);
    for (const double b : from_old.busy(0)) {
        EXPECT_TRUE(std::isnan(b));
    }
    EXPECT_EQ(from_old.idle(0)->basis, IdleBasis::all);
}

// A name read from sysfs that is not UTF-8 (a hwmon label) is written, not thrown on (a
// review: the daemon aborted at its first periodic save).
TEST(IdleStore, ANameThatIsNotUtf8IsWrittenAnyway) {
    const std::vector<Channel> chans{channel("dram\xff", "rapl:dram:0")};
    IdleLearner l({Quantity::energy}, settings());
    learn(l, 0, {5, 6});
    std::string text;
    ASSERT_NO_THROW(text = idle_json(l, chans, k_now));
    EXPECT_TRUE(nlohmann::json::accept(text));
}

TEST(IdleStore, TheFileIsWrittenWholeInADirectoryOfItsOwn) {
    test::FakeSysfs fs;
    const auto dir = fs.path("/state/jouleprof");
    ::chmod(fs.path("/").c_str(), 0755);
    ASSERT_EQ(::mkdir(fs.path("/state").c_str(), 0755), 0);
    ASSERT_TRUE(save_idle_file(dir, "first\n"));
    struct stat st {};
    ASSERT_EQ(::stat(dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0700U) << "made for the daemon alone";
    ASSERT_EQ(::stat((dir / k_idle_file).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600U);
    ASSERT_TRUE(save_idle_file(dir.string() + "/", "second\n")); // replaced, a trailing slash
    const auto back = read_idle_file(dir);
    ASSERT_TRUE(back) << back.error().message();
    EXPECT_EQ(*back, "second\n");
    EXPECT_FALSE(std::filesystem::exists(dir / ".idle-history.json.tmp"));

    // None yet: not_found, which the daemon says as "none yet".
    const auto none = read_idle_file(fs.path("/state/other"));
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().kind, ErrorKind::not_found);
    // A relative path is never resolved against wherever the daemon happens to run.
    EXPECT_FALSE(save_idle_file("state", "x\n"));
}

TEST(IdleStore, ADirectoryOthersCanWriteIntoIsRefusedForReadingAndWriting) {
    test::FakeSysfs fs;
    ::chmod(fs.path("/").c_str(), 0755);
    const auto dir = fs.path("/open");
    ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
    ASSERT_TRUE(save_idle_file(dir, "x\n"));
    ASSERT_EQ(::chmod(dir.c_str(), 01777), 0); // even sticky: others could take the names first
    const auto w = save_idle_file(dir, "y\n");
    ASSERT_FALSE(w);
    EXPECT_NE(w.error().message().find("writable by other users"), std::string::npos)
        << w.error().message();
    ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
    // A history file another user may write is not read.
    ASSERT_EQ(::chmod((dir / k_idle_file).c_str(), 0666), 0);
    const auto r = read_idle_file(dir);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("writable by other users"), std::string::npos)
        << r.error().message();
    // Nor a link put in its place.
    std::filesystem::remove(dir / k_idle_file);
    std::filesystem::create_symlink("/etc/hostname", dir / k_idle_file);
    ASSERT_TRUE(save_idle_file(dir, "z\n")) << "the link is replaced, never written through";
    EXPECT_FALSE(std::filesystem::is_symlink(dir / k_idle_file));
    EXPECT_EQ(*read_idle_file(dir), "z\n");
}

} // namespace
} // namespace jp::daemon
