// SPDX-License-Identifier: BSD-3-Clause
// The shape of a GPU's power between its counter's anchors (report/field_shape.hpp) on real
// GPUs: the H200 run with marked phases (tests/data/h200/phases.jptrace, the driver's counter
// read back to back beside it in phases.csv) and the H100's and H200's square waves and pulse
// trains (each second no worse than the bound the mean alone is held to).
#include "channel_samples.hpp"
#include "fake_sysfs.hpp"
#include "gpu_capture.hpp"
#include "report/anchored.hpp"
#include "report/field_shape.hpp"
#include "trace/reader.hpp"
#include "trace/sqlite.hpp"
#include "trace/types.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace jp::report {
namespace {

using namespace test::shape_units;
using test::energy;
using test::samples;
using test::value_at;

// ---- The real H200 run: three phases between anchors ----

struct Phase {
    std::string name;
    std::int64_t begin_ns = 0; // CLOCK_MONOTONIC, the capture's clock
    std::int64_t end_ns = 0;
};

struct RealRun {
    trace::Reader reader;
    std::int64_t run_id = 0;
    std::int64_t epoch_ns = 0;
    std::vector<Phase> phases;
};

RealRun open_real_run(const std::filesystem::path& dir) {
    const std::filesystem::path source{std::string{JP_TEST_SOURCE_DIR} +
                                       "/data/h200/phases.jptrace"};
    std::filesystem::copy_file(source, dir / "phases.jptrace");
    auto reader = trace::Reader::open(dir / "phases.jptrace");
    if (!reader) {
        throw std::runtime_error(reader.error().message());
    }
    RealRun r{std::move(*reader), 0, 0, {}};
    r.run_id = r.reader.runs().at(0).id;
    r.epoch_ns = std::stoll(r.reader.meta().at("epoch_mono_ns"));
    auto markers = r.reader.markers(r.run_id);
    if (!markers) {
        throw std::runtime_error(markers.error().message());
    }
    std::map<std::string, std::int64_t> open;
    for (const auto& m : *markers) {
        if (m.kind == "begin") {
            open[m.name] = r.epoch_ns + m.t_ns;
        } else if (m.kind == "end") {
            r.phases.push_back({m.name, open.at(m.name), r.epoch_ns + m.t_ns});
        }
    }
    return r;
}

std::size_t channel_named(const trace::Reader& reader, const std::string& name) {
    const auto& c = reader.channels();
    const auto it = std::ranges::find(c, name, &Channel::name);
    if (it == c.end()) {
        throw std::runtime_error("no channel " + name);
    }
    return static_cast<std::size_t>(it - c.begin());
}

TEST(FieldShapeOnARealGpu, PhasesBetweenAnchorsAddUpToTheDriversCounter) {
    test::FakeSysfs tmp;
    auto r = open_real_run(tmp.root());
    ASSERT_EQ(r.phases.size(), 3U);
    const auto gpu = channel_named(r.reader, "gpu0");
    const auto profiles = profile_index(r.reader.channels());
    ASSERT_TRUE(profiles[gpu]);
    EXPECT_EQ(profiles[gpu]->level, channel_named(r.reader, "gpu0.power"));
    ASSERT_TRUE(profiles[gpu]->detail);
    EXPECT_EQ(*profiles[gpu]->detail, channel_named(r.reader, "gpu0.instant"));

    auto shaped = run_readings(r.reader, r.run_id, gpu, profiles);
    ASSERT_TRUE(shaped) << shaped.error().message();
    auto counter = r.reader.samples(r.run_id, gpu);
    auto mean = r.reader.samples(r.run_id, profiles[gpu]->level);
    ASSERT_TRUE(counter && mean);
    ASSERT_EQ(counter->points.size(), 4U); // the edges and two anchors: no phase edge is one
    const auto alone = anchor_profile(*counter, *mean, nullptr, 500 * k_ms).points;

    // The driver's counter read back to back by another process, in joules (≤ 100 ms old).
    const auto truth = test::field_capture("h200", "phases.csv", "energy_mj");
    std::vector<TimedValue> combined;
    std::vector<TimedValue> level_only;
    for (const auto& p : shaped->points) {
        combined.push_back({p.t_ns + r.epoch_ns, p.value});
    }
    for (const auto& p : alone) {
        level_only.push_back({p.t_ns + r.epoch_ns, p.value});
    }
    double worst_alone = 0;
    for (const auto& ph : r.phases) {
        SCOPED_TRACE(ph.name);
        const double want = energy(truth, ph.begin_ns, ph.end_ns);
        const double got = energy(combined, ph.begin_ns, ph.end_ns);
        // Measured: 0.01-0.8 % (the goal: 2 %); the reference itself, interpolated
        // between 100 ms updates, is within its range of 3-7 % of each phase.
        EXPECT_NEAR(got, want, 0.02 * want);
        worst_alone = std::max(worst_alone,
                               std::abs(energy(level_only, ph.begin_ns, ph.end_ns) - want) / want);
    }
    EXPECT_GT(worst_alone, 0.10); // the mean alone: 4-14 % low, as the report said on the H200
}

// The real trace with the instant field's readings after `after_s` s (or all of them)
// deleted, as a run whose field failed part-way leaves it.
void drop_instant_readings(const std::filesystem::path& trace, double after_s) {
    auto db = trace::Database::open(trace, trace::Database::Mode::create);
    ASSERT_TRUE(db) << db.error().message();
    const auto done =
        db->exec("DELETE FROM block WHERE channel_id = (SELECT id FROM channel WHERE name = "
                 "'gpu0.instant') AND t_min_ns > " +
                 std::to_string(static_cast<std::int64_t>(after_s * 1e9)));
    ASSERT_TRUE(done) << done.error().message();
}

TEST(FieldShapeOnARealGpu, AnInstantFieldThatStopsLeavesTheMeanToShapeTheRest) {
    test::FakeSysfs tmp;
    {
        auto r = open_real_run(tmp.root()); // copies the trace
    }
    drop_instant_readings(tmp.root() / "phases.jptrace", 10.0); // none after 10.23 s
    auto reader = trace::Reader::open(tmp.root() / "phases.jptrace");
    ASSERT_TRUE(reader) << reader.error().message();
    const auto run = reader->runs().at(0).id;
    const auto gpu = channel_named(*reader, "gpu0");
    const auto profiles = profile_index(reader->channels());
    auto shaped = run_readings(*reader, run, gpu, profiles);
    ASSERT_TRUE(shaped) << shaped.error().message();
    const auto& p = shaped->points;
    for (std::size_t i = 1; i < p.size(); ++i) {
        const double watts =
            (p[i].value - p[i - 1].value) / (static_cast<double>(p[i].t_ns - p[i - 1].t_ns) * 1e-9);
        // A 700 W board, whose 100 ms readings reached 808 W (the first check); a review saw
        // 5.5 kW here before the fix.
        EXPECT_LT(watts, 1000.0) << p[i].t_ns;
    }
    auto coverage = field_coverage(*reader, run);
    ASSERT_TRUE(coverage && !coverage->empty());
    EXPECT_EQ(coverage->front().detail, "gpu0.instant"); // it shaped the first 10 s
}

TEST(FieldShapeOnARealGpu, TheNoteNamesNoDetailWhereNoneShapedTheRun) {
    test::FakeSysfs tmp;
    { auto r = open_real_run(tmp.root()); }
    drop_instant_readings(tmp.root() / "phases.jptrace", -1.0); // every one
    auto reader = trace::Reader::open(tmp.root() / "phases.jptrace");
    ASSERT_TRUE(reader) << reader.error().message();
    auto coverage = field_coverage(*reader, reader->runs().at(0).id);
    ASSERT_TRUE(coverage && !coverage->empty());
    EXPECT_EQ(coverage->front().field, "gpu0.power");
    EXPECT_EQ(coverage->front().detail, "");
    EXPECT_EQ(coverage_note(coverage->front()).find("detail"), std::string::npos);
}

// ---- The real captures: every second no worse than the mean alone is held to ----

double worst_second(const std::vector<TimedValue>& shaped, const std::vector<TimedValue>& truth) {
    double worst = 0;
    for (std::int64_t t = shaped.front().t_ns + k_sec; t + k_sec <= shaped.back().t_ns;
         t += k_sec) {
        const double want = energy(truth, t, t + k_sec);
        worst = std::max(worst, std::abs(energy(shaped, t, t + k_sec) - want) / want);
    }
    return worst;
}

// What a monitor reading every 100 ms, starting `offset_ns` into the capture, saw.
std::vector<TimedValue> polled_from(const std::vector<TimedValue>& rows, std::int64_t offset_ns) {
    std::vector<TimedValue> out;
    std::size_t k = 0;
    for (std::int64_t t = rows.front().t_ns + offset_ns; t <= rows.back().t_ns; t += 100 * k_ms) {
        while (k + 1 < rows.size() && rows[k + 1].t_ns <= t) {
            ++k;
        }
        out.push_back({t, rows[k].value});
    }
    return out;
}

TEST(FieldShapeOnARealGpu, EachSecondOfTheSquareWavesAndPulseTrainsStaysClose) {
    // Steady loads switching every few ms to 130 ms, where the mean alone does well and the
    // instant field's detail is mostly its part-time noise: the price of sharp phase edges.
    // Read as a monitor would, from five phases of its 100 ms against the capture's start.
    double worst_both = 0;
    double worst_alone = 0;
    for (const auto* gpu : {"h100", "h200"}) {
        for (const auto* load : {"square-37ms", "square-130ms", "pulse-101ms", "pulse-103ms"}) {
            SCOPED_TRACE(std::string{gpu} + " " + load);
            const std::string file = std::string{load} + ".csv";
            const auto truth = test::field_capture(gpu, file, "energy_mj");
            double both = 0;
            double alone = 0;
            for (std::int64_t offset = 0; offset < 100 * k_ms; offset += 20 * k_ms) {
                // Both fields every 100 ms, the counter every 10 s and at the end.
                const auto mean = polled_from(test::field_capture(gpu, file, "usage_mw"), offset);
                const auto instant =
                    polled_from(test::field_capture(gpu, file, "instant_mw"), offset);
                std::vector<TimedValue> anchors;
                for (std::int64_t t = mean.front().t_ns; t <= mean.back().t_ns; t += 10 * k_sec) {
                    anchors.push_back({t, value_at(truth, t)});
                }
                anchors.push_back({mean.back().t_ns, value_at(truth, mean.back().t_ns)});
                const auto level = usable_power(mean, 500 * k_ms);
                const auto shaped =
                    anchor_shape(
                        samples(anchors),
                        level_and_detail(level, usable_power(instant, 50 * k_ms), k_sec, k_gap)
                            .points)
                        .points;
                EXPECT_NEAR(shaped.back().value - shaped.front().value,
                            anchors.back().value - anchors.front().value, 1e-6);
                both = std::max(both, worst_second(shaped, truth));
                alone = std::max(alone,
                                 worst_second(anchor_shape(samples(anchors), level).points, truth));
            }
            std::printf("%s %s: worst second %.1f %% (the mean alone: %.1f %%)\n", gpu, load,
                        100 * both, 100 * alone);
            EXPECT_LT(both, 0.35); // the bound the mean alone is held to (anchored_test.cpp)
            worst_both = std::max(worst_both, both);
            worst_alone = std::max(worst_alone, alone);
        }
    }
    EXPECT_LE(worst_both, worst_alone); // over all eight, no worse than the mean alone
}

} // namespace
} // namespace jp::report
