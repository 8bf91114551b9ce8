// SPDX-License-Identifier: BSD-3-Clause
// The stand-in NVML as a real H100 behaves (model=h100; docs/gpu-check.md): an energy read
// spins ~4 ms of the caller's CPU, the counter changes every 100 ms, the instant power
// field averages 30 ms of each 100 ms (a pulse outside that window is never seen) while
// the counter integrates everything. Read through jouleprof's own nvml backend.
#include "anchors_off.hpp"
#include "core/clock.hpp"
#include "sensors/nvml/nvml.hpp"
#include "stub_fixture.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <string>
#include <thread>
#include <time.h>
#include <utility>
#include <vector>

namespace jp::sensors {
namespace {

using namespace std::chrono_literals;

Discovery discover(const std::string& fixture) {
    Host h;
    h.nvml_library = JP_TEST_STUB_DIR "/libfake-nvidia-ml.so";
    h.config = &test::k_anchors_off;
    test::StubTime origin;
    return test::discover_with(
        "JP_FAKE_NVML_FIXTURE", fixture, [&] { return nvml::discover(h); }, origin);
}

double thread_cpu_seconds() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// 100 W, with a 15 ms pulse of 500 W at 30-45 ms of every 100 ms for 3 s: the stand-in's
// updates fall on whole 100 ms, so the instant field's window (35-5 ms before each
// update, i.e. 65-95 ms into the period before) never holds a pulse.
std::string pulse_train(const char* gpu_line) {
    std::string f = fmt::format("{}\npower 0 0 100\n", gpu_line);
    for (int k = 0; k < 30; ++k) {
        const double a = k * 0.1 + 0.030;
        const double b = k * 0.1 + 0.045;
        // A microsecond per step: the profile sorts its points, and two at one time would
        // be ordered by watts, turning each fall into a ramp.
        f += fmt::format("power 0 {} 100\npower 0 {} 500\npower 0 {} 500\npower 0 {} 100\n", a,
                         a + 1e-6, b, b + 1e-6);
    }
    return f;
}

TEST(NvmlStandIn, AModelWithANegativeTimeIsAMalformedFixture) {
    for (const char* bad : {"lag_ms=-500", "update_ms=nan", "energy_cost_us=-1", "model=h999"}) {
        auto d =
            discover(fmt::format("gpu 0 00000000:3B:00.0 model=h100 {}\npower 0 0 300\n", bad));
        EXPECT_TRUE(d.sensors.empty()) << bad;
    }
}

TEST(NvmlStandIn, AnH100sEnergyReadSpinsFourMillisecondsOfCpu) {
    auto d = discover("gpu 0 00000000:3B:00.0 model=h100\npower 0 0 300\n");
    ASSERT_EQ(d.sensors.size(), 1U);
    auto& s = *d.sensors[0];
    ASSERT_EQ(s.channels()[0].quantity, Quantity::energy);
    EXPECT_NE(s.channels()[0].source.find("NVIDIA H100 80GB HBM3"), std::string::npos);
    const double before = thread_cpu_seconds();
    const auto v = test::read_once(s);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_GE(thread_cpu_seconds() - before, 3.5e-3);
    // Without the model, a read costs (next to) nothing.
    auto free = discover("gpu 0 00000000:3B:00.0\npower 0 0 300\n");
    ASSERT_EQ(free.sensors.size(), 1U);
    const double t0 = thread_cpu_seconds();
    (void)test::read_once(*free.sensors[0]);
    EXPECT_LT(thread_cpu_seconds() - t0, 3.5e-3);
}

TEST(NvmlStandIn, AnH100sPowerFieldReadCostsMicroseconds) {
    // The field and utilisation reads cost 5-12 us each on the H100: the stand-in spins 8 us
    // (read_cost_us sets it; 500 here, to see it plainly).
    for (const auto& [line, least] : {std::pair{"model=h100 energy=no", 8e-6},
                                      std::pair{"model=h100 energy=no read_cost_us=500", 5e-4}}) {
        auto d = discover(fmt::format("gpu 0 00000000:3B:00.0 {}\npower 0 0 300\n", line));
        ASSERT_EQ(d.sensors.size(), 1U) << line;
        ASSERT_EQ(d.sensors[0]->channels()[0].quantity, Quantity::power) << line;
        const double before = thread_cpu_seconds();
        const auto v = test::read_once(*d.sensors[0]);
        const double spent = thread_cpu_seconds() - before;
        EXPECT_EQ(v[0].status, ReadStatus::ok) << line;
        EXPECT_GE(spent, least) << line;
        EXPECT_LT(spent, 3.5e-3) << line << ": no energy read";
    }
}

TEST(NvmlStandIn, AnH100sCounterChangesEvery100Milliseconds) {
    auto d = discover("gpu 0 00000000:3B:00.0 model=h100\npower 0 0 300\n");
    ASSERT_EQ(d.sensors.size(), 1U);
    auto& s = *d.sensors[0];
    std::vector<std::int64_t> changes;
    double last = -1;
    const auto end = mono_ns() + 700'000'000;
    while (mono_ns() < end) {
        const auto v = test::read_once(s);
        ASSERT_EQ(v[0].status, ReadStatus::ok);
        if (last >= 0 && v[0].value != last) {
            changes.push_back(mono_ns());
            // 300 W for each 100 ms update: 30 J a step (whole mJ), or a multiple when a
            // read was held up for more than an update.
            const double steps = (v[0].value - last) / 30.0;
            EXPECT_GE(steps, 0.999);
            EXPECT_NEAR(steps, std::round(steps), 1e-4);
        }
        last = v[0].value;
    }
    ASSERT_GE(changes.size(), 4U);
    std::vector<std::int64_t> gaps;
    for (std::size_t i = 1; i < changes.size(); ++i) {
        gaps.push_back(changes[i] - changes[i - 1]);
    }
    std::ranges::sort(gaps);
    EXPECT_NEAR(static_cast<double>(gaps[gaps.size() / 2]) * 1e-6, 100.0, 15.0);
}

TEST(NvmlStandIn, TheInstantFieldIsPartTimeTheCounterIsNot) {
    // The instant field (the GPU's power channel when it has no counter) never sees a pulse.
    auto field = discover(pulse_train("gpu 0 00000000:3B:00.0 model=h100 energy=no"));
    ASSERT_EQ(field.sensors.size(), 1U);
    auto& f = *field.sensors[0];
    ASSERT_EQ(f.channels()[0].quantity, Quantity::power);
    for (int i = 0; i < 40; ++i) {
        const auto v = test::read_once(f);
        ASSERT_EQ(v[0].status, ReadStatus::ok);
        EXPECT_NEAR(v[0].value, 100.0, 0.01) << "read " << i;
        std::this_thread::sleep_for(13ms);
    }
    // The counter holds every pulse: 100 W + 400 W x 15 % = 160 W, 16 J per 100 ms update.
    auto counter = discover(pulse_train("gpu 0 00000000:3B:00.0 model=h100"));
    ASSERT_EQ(counter.sensors.size(), 1U);
    auto& c = *counter.sensors[0];
    const auto a = test::read_once(c);
    std::this_thread::sleep_for(1s);
    const auto b = test::read_once(c);
    ASSERT_EQ(a[0].status, ReadStatus::ok);
    ASSERT_EQ(b[0].status, ReadStatus::ok);
    const double updates = (b[0].value - a[0].value) / 16.0;
    EXPECT_NEAR(updates, std::round(updates), 0.01) << "whole updates of 16 J each";
    EXPECT_GE(updates, 9.0);
}

TEST(NvmlStandIn, TheAverageFieldAndPowerUsageAreOneSecondMeans) {
    // 100 W for the first second, 500 W after: a 1 s mean moves over a second.
    auto d = discover("gpu 0 00000000:3B:00.0 model=h100 energy=no instant=no\n"
                      "power 0 0 100\npower 0 1 100\npower 0 1.000001 500\n");
    ASSERT_EQ(d.sensors.size(), 1U);
    auto& s = *d.sensors[0];
    // At an update at t in (1 s, 2 s) the mean over [t - 1 s, t] is 100 + 400 (t - 1) W:
    // between the two levels, where an instant reading would be at one of them.
    std::this_thread::sleep_for(1500ms);
    const auto v = test::read_once(s);
    ASSERT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_GT(v[0].value, 101.0);
    EXPECT_LT(v[0].value, 499.0);
}

} // namespace
} // namespace jp::sensors
