// SPDX-License-Identifier: BSD-3-Clause
#include "fake_sysfs.hpp"
#include "sensors/replay/replay.hpp"
#include "trace/writer.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <unistd.h>

namespace jp::sensors {
namespace {

Channel make_channel(std::string name, Domain d, Quantity q) {
    Channel c;
    c.name = std::move(name);
    c.domain = d;
    c.quantity = q;
    c.backend = "recorded";
    c.source = "test";
    return c;
}

// A trace with one run: node power from (t_s, W) points, gpu0 energy rising 100 J/s.
std::filesystem::path write_trace(const test::FakeSysfs& fs,
                                  const std::vector<std::pair<double, double>>& node_w) {
    const auto path = fs.path("/rec.jptrace");
    auto w = trace::Writer::create(path, {});
    EXPECT_TRUE(w);
    std::vector<Channel> chans{make_channel("node", Domain::node, Quantity::power),
                               make_channel("gpu0", Domain::gpu, Quantity::energy)};
    EXPECT_TRUE(w->add_channels(chans));
    trace::RunInfo run;
    const auto id = w->begin_run(run);
    std::vector<trace::SampleRecord> samples;
    for (const auto& [t, watts] : node_w) {
        const auto t_ns = static_cast<std::int64_t>(t * 1e9);
        samples.push_back({0, 0, t_ns, watts});
        samples.push_back({1, 0, t_ns, 100.0 * t});
    }
    EXPECT_TRUE(w->append(samples, *id));
    EXPECT_TRUE(w->commit());
    return path;
}

TEST(Replay, PlaysChannelsAgainstTheClockAndLoops) {
    test::FakeSysfs fs;
    Host host;
    host.replay_trace = write_trace(fs, {{0.0, 100.0}, {0.2, 300.0}});
    auto d = replay::discover(host);
    ASSERT_EQ(d.sensors.size(), 1U);
    auto& s = *d.sensors[0];
    ASSERT_EQ(s.channels().size(), 2U);
    EXPECT_EQ(s.channels()[0].domain, Domain::node);
    EXPECT_EQ(s.channels()[0].backend, "replay");
    std::vector<Value> v(2);
    ::usleep(100'000);
    s.read(v);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_GT(v[0].value, 140.0);
    EXPECT_LT(v[0].value, 300.0);
    ::usleep(250'000); // past one loop of 0.2 s: energy keeps rising
    s.read(v);
    EXPECT_GT(v[1].value, 20.0);
}

TEST(Replay, MissingOrForeignFileIsANote) {
    test::FakeSysfs fs;
    fs.add({"/not-a-trace", "hello\n"});
    Host host;
    host.replay_trace = fs.path("/not-a-trace");
    auto d = replay::discover(host);
    EXPECT_TRUE(d.sensors.empty());
    ASSERT_FALSE(d.notes.empty());
}

// Real data: a Dell GPU node's BMC power, 1 Hz, recorded by others (data/traces).
TEST(Replay, RealIpmiRecordingPlaysBackWithinItsRange) {
    std::ifstream csv{JP_DATA_DIR "/traces/nsfcac_ipmi_dcmi_power_1_hour.csv"};
    ASSERT_TRUE(csv) << "data/traces/nsfcac_ipmi_dcmi_power_1_hour.csv is missing";
    std::string line;
    std::getline(csv, line); // header
    std::vector<std::pair<double, double>> points;
    double t0 = -1;
    while (std::getline(csv, line)) {
        std::stringstream ss{line};
        std::string stamp, unix_s, watts;
        std::getline(ss, stamp, ',');
        std::getline(ss, unix_s, ',');
        std::getline(ss, watts, ',');
        const double t = std::stod(unix_s);
        t0 = t0 < 0 ? t : t0;
        points.emplace_back(t - t0, std::stod(watts));
    }
    ASSERT_EQ(points.size(), 454U);
    test::FakeSysfs fs;
    Host host;
    host.replay_trace = write_trace(fs, points);
    auto d = replay::discover(host);
    ASSERT_EQ(d.sensors.size(), 1U);
    std::vector<Value> v(2);
    d.sensors[0]->read(v);
    EXPECT_GE(v[0].value, 584.0);
    EXPECT_LE(v[0].value, 592.0);
}

} // namespace
} // namespace jp::sensors
