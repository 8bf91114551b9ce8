// SPDX-License-Identifier: BSD-3-Clause
// The estimate backend end to end: fake /proc trees in, channels and watts out.
// Expected watts are computed here from the formula in docs/cpu-models.md, not with
// the backend's own code.
#include "config/config.hpp"
#include "fake_node.hpp"
#include "sensors/estimate/estimate.hpp"

#include <gtest/gtest.h>

namespace jp::sensors {
namespace {

using test::any_note;
using test::FakeNode;
using test::find_sensor;
using test::read_one;
using test::Ticks;

constexpr double k_idle = 0.3; // the documented default idle fraction

Sensor& cpu_of(Discovery& d) {
    return test::sensor_of(d, "cpu.estimate");
}

TEST(Estimate, ReturnsSeparateCpuAndDramSensors) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    ASSERT_EQ(d.sensors.size(), 2U) << "one per domain, so the registry can drop either";
    for (const auto& s : d.sensors) {
        EXPECT_EQ(s->channels().size(), 1U);
        EXPECT_EQ(s->backend(), "estimate");
    }
    EXPECT_NE(find_sensor(d, "cpu.estimate"), nullptr);
    EXPECT_NE(find_sensor(d, "dram.estimate"), nullptr);
}

TEST(Estimate, CpuChannelIsAnEstimatedPowerChannel) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    const auto& c = cpu_of(d).channels()[0];
    EXPECT_EQ(c.domain, Domain::cpu_package);
    EXPECT_EQ(c.quantity, Quantity::power);
    EXPECT_EQ(c.provenance, Provenance::estimated);
    EXPECT_EQ(c.backend, "estimate");
    EXPECT_TRUE(c.counted);
    EXPECT_TRUE(c.source.starts_with("model: AMD EPYC 7763")) << c.source;
    EXPECT_TRUE(c.source.contains("TDP 280 W/socket (AMD specification)")) << c.source;
    EXPECT_TRUE(c.source.contains("idle 30 %")) << c.source;
    EXPECT_TRUE(c.source.contains("2 of 128 threads")) << c.source;
}

TEST(Estimate, NotesSayTheFiguresAreEstimatedNotMeasured) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    EXPECT_TRUE(any_note(d, "estimated from a model"));
    EXPECT_TRUE(any_note(d, "not measured"));
}

TEST(Estimate, WattsFollowUtilisationBetweenSuccessiveReads) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    auto& cpu = cpu_of(d);
    const double full = 280.0 * 2.0 / 128.0; // 2 vCPUs of a 128-thread, 280 W socket

    // First read: the delta since discovery. 40 busy ticks of 100.
    node.advance({.user = 30, .system = 10, .idle = 50, .iowait = 10});
    auto v = read_one(cpu);
    EXPECT_EQ(v.status, ReadStatus::ok);
    EXPECT_NEAR(v.value, full * (k_idle + (1 - k_idle) * 0.40), 1e-9);

    // Second read: only the new ticks count. nice+irq+softirq = 30 busy of 100.
    node.advance({.nice = 20, .idle = 70, .irq = 5, .softirq = 5});
    v = read_one(cpu);
    EXPECT_NEAR(v.value, full * (k_idle + (1 - k_idle) * 0.30), 1e-9);

    // Fully busy, then fully idle.
    node.advance({.user = 200});
    EXPECT_NEAR(read_one(cpu).value, full, 1e-9);
    node.advance({.idle = 200});
    EXPECT_NEAR(read_one(cpu).value, full * k_idle, 1e-9);
}

TEST(Estimate, StealAndIowaitElapseButAreNotBusy) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    node.advance({.user = 25, .iowait = 25, .steal = 50});
    const double full = 280.0 * 2.0 / 128.0;
    EXPECT_NEAR(read_one(cpu_of(d)).value, full * (k_idle + (1 - k_idle) * 0.25), 1e-9);
}

TEST(Estimate, GuestTimeIsNotCountedTwice) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    // The kernel adds guest time to user as well: 60 user ticks, 40 of them guest.
    node.advance({.user = 60, .idle = 40, .guest = 40});
    const double full = 280.0 * 2.0 / 128.0;
    EXPECT_NEAR(read_one(cpu_of(d)).value, full * (k_idle + (1 - k_idle) * 0.60), 1e-9);
}

TEST(Estimate, NoTickSinceTheLastReadKeepsTheLastFigure) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    auto& cpu = cpu_of(d);
    node.advance({.user = 50, .idle = 50});
    const double first = read_one(cpu).value;
    const auto again = read_one(cpu); // /proc/stat unchanged
    EXPECT_EQ(again.status, ReadStatus::ok);
    EXPECT_DOUBLE_EQ(again.value, first);
    // The baseline stayed put: the next delta is measured from the last real change.
    node.advance({.idle = 100});
    const double full = 280.0 * 2.0 / 128.0;
    EXPECT_NEAR(read_one(cpu).value, full * k_idle, 1e-9);
}

TEST(Estimate, UnknownModelFallsBackToTheGenericFigure) {
    FakeNode node{"AMD EPYC", 2, true}; // what this project's VM reports
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    auto& cpu = cpu_of(d);
    const auto& source = cpu.channels()[0].source;
    EXPECT_TRUE(source.contains("generic")) << source;
    EXPECT_TRUE(source.contains("'AMD EPYC'")) << source;
    EXPECT_TRUE(any_note(d, "CPU model 'AMD EPYC' is not in the model table"));
    EXPECT_TRUE(any_note(d, "cpu_tdp_watts")) << "the note says how to do better";
    node.advance({.user = 100});
    EXPECT_NEAR(read_one(cpu).value, 2 * 6.0, 1e-9) << "6 W per visible logical CPU";
    node.advance({.idle = 100});
    EXPECT_NEAR(read_one(cpu).value, 2 * 6.0 * k_idle, 1e-9);
}

TEST(Estimate, KnownModelIsNotGeneric) {
    FakeNode node{"Intel(R) Xeon(R) Platinum 8368 CPU @ 2.40GHz", 4, true};
    auto d = estimate::discover(Host::with_root(node.fs.root()));
    const auto& c = cpu_of(d).channels()[0];
    EXPECT_FALSE(c.source.contains("generic")) << c.source;
    EXPECT_TRUE(c.source.contains("Intel Xeon Platinum 8368")) << c.source;
    EXPECT_NEAR(*c.limit_watts, 270.0 * 4.0 / 76.0, 1e-9);
    EXPECT_FALSE(any_note(d, "generic"));
}

TEST(Estimate, ConfigOverridesWinOverTheTable) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    Config cfg;
    cfg.node.cpu_tdp_watts = 200.0;
    cfg.node.cpu_idle_fraction = 0.5;
    cfg.node.cpu_threads_per_socket = 64;
    auto host = Host::with_root(node.fs.root());
    host.config = &cfg;
    auto d = estimate::discover(host);
    auto& cpu = cpu_of(d);
    const auto& source = cpu.channels()[0].source;
    EXPECT_TRUE(source.contains("TDP 200 W/socket (config)")) << source;
    EXPECT_TRUE(source.contains("idle 50 % of TDP (config)")) << source;
    EXPECT_TRUE(source.contains("64 threads/socket (config)")) << source;
    node.advance({.user = 20, .idle = 80});
    EXPECT_NEAR(read_one(cpu).value, 200.0 * 2.0 / 64.0 * (0.5 + 0.5 * 0.2), 1e-9);
}

TEST(Estimate, ConfiguredModelNameSelectsATableRow) {
    FakeNode node{"AMD EPYC", 2, true};
    Config cfg;
    cfg.node.cpu_model = "AMD EPYC 7763 64-Core Processor";
    auto host = Host::with_root(node.fs.root());
    host.config = &cfg;
    auto d = estimate::discover(host);
    const auto& c = cpu_of(d).channels()[0];
    EXPECT_FALSE(c.source.contains("generic")) << c.source;
    EXPECT_NEAR(*c.limit_watts, 280.0 * 2.0 / 128.0, 1e-9);
    EXPECT_FALSE(any_note(d, "generic"));
}

TEST(Estimate, ConfiguredTdpForAnUnknownModelIsNotGeneric) {
    FakeNode node{"AMD EPYC", 2, true};
    Config cfg;
    cfg.node.cpu_tdp_watts = 280.0;
    cfg.node.cpu_threads_per_socket = 128;
    auto host = Host::with_root(node.fs.root());
    host.config = &cfg;
    auto d = estimate::discover(host);
    const auto& c = cpu_of(d).channels()[0];
    EXPECT_TRUE(c.source.starts_with("model: AMD EPYC,")) << c.source;
    EXPECT_NEAR(*c.limit_watts, 280.0 * 2.0 / 128.0, 1e-9);
}

TEST(Estimate, InvalidConfigValuesAreIgnoredWithANote) {
    FakeNode node{"AMD EPYC 7763 64-Core Processor", 2, true};
    Config cfg;
    cfg.node.cpu_idle_fraction = 1.5;
    cfg.node.cpu_tdp_watts = -10.0;
    auto host = Host::with_root(node.fs.root());
    host.config = &cfg;
    auto d = estimate::discover(host);
    const auto& c = cpu_of(d).channels()[0];
    EXPECT_TRUE(c.source.contains("TDP 280 W/socket (AMD specification)")) << c.source;
    EXPECT_TRUE(c.source.contains("idle 30 % of TDP (default)")) << c.source;
    EXPECT_TRUE(any_note(d, "cpu_idle_fraction"));
    EXPECT_TRUE(any_note(d, "cpu_tdp_watts"));
}

} // namespace
} // namespace jp::sensors
