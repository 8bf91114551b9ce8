// SPDX-License-Identifier: BSD-3-Clause
// A real H100's energy counter (tests/data/h100/, captured on the GPU) read the way a
// monitor polling every 10 ms would have read it: the report learns the counter's own
// 100 ms update period from the repeats and keeps the GPU's power at what it drew,
// where reading-to-reading power would have shown twice the power limit.
#include "gpu_capture.hpp"
#include "report/series.hpp"
#include "report/timing.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace jp::report {
namespace {

using test::h100_energy;
using test::polled;
constexpr std::int64_t k_ms = test::k_capture_ms;

Channel h100() {
    Channel c;
    c.name = "gpu0";
    c.quantity = Quantity::energy;
    c.backend = "nvml";
    return c;
}

struct Seen {
    Timing timing;
    double peak_w = 0;
    double naive_peak_w = 0; // reading to reading
    double mean_w = 0;
};

Seen read_every(const std::string& file, std::int64_t period_ns) {
    const auto r = polled(h100_energy(file), period_ns);
    const auto c = h100();
    Seen s;
    s.timing = timing_of(c, r);
    const auto g =
        channel_grid(c, knots_of(c, r), r.front().t_ns, r.back().t_ns, s.timing.resolution_ns);
    s.peak_w = *std::ranges::max_element(g.watts);
    for (std::size_t i = 1; i < r.size(); ++i) {
        s.naive_peak_w =
            std::max(s.naive_peak_w, (r[i].value - r[i - 1].value) * 1e9 /
                                         static_cast<double>(r[i].t_ns - r[i - 1].t_ns));
    }
    s.mean_w = (r.back().value - r.front().value) * 1e9 /
               static_cast<double>(r.back().t_ns - r.front().t_ns);
    return s;
}

TEST(RealH100, TheCaptureChangesEvery100Milliseconds) {
    for (const auto* file : {"idle.csv", "load.csv"}) {
        const auto rows = h100_energy(file);
        ASSERT_GT(rows.size(), 150U) << file;
        EXPECT_NEAR(static_cast<double>(test::median_gap_between_changes(rows)), 100 * k_ms,
                    3 * k_ms)
            << file;
    }
}

TEST(RealH100, ReadEvery10MsItsPowerStaysAtWhatItDrew) {
    const auto s = read_every("load.csv", 10 * k_ms);
    EXPECT_TRUE(s.timing.update_learned);
    EXPECT_NEAR(static_cast<double>(s.timing.update_ns), 100 * k_ms, 5 * k_ms);
    EXPECT_TRUE(s.timing.oversampled());
    EXPECT_GE(s.timing.resolution_ns, 100 * k_ms);
    // The matrix products drew 500-830 W per 100 ms update; the board's limit is 700 W.
    EXPECT_LT(s.peak_w, 900) << "no phantom peak";
    EXPECT_GT(s.peak_w, 600) << "the load is seen";
    EXPECT_GT(s.naive_peak_w, 5000) << "the aliasing this prevents: a 100 ms step in 10 ms";
    EXPECT_FALSE(timing_note(h100(), s.timing).empty()) << "and the report says so";
}

TEST(RealH100, IdleReadEvery1MsPeaksNearItsMean) {
    const auto s = read_every("idle.csv", 1 * k_ms);
    EXPECT_NEAR(s.mean_w, 70, 10);
    EXPECT_LT(s.peak_w, 2 * s.mean_w) << "an idle GPU has no 1 ms spikes of 70 kW";
    EXPECT_GT(s.naive_peak_w, 50 * s.mean_w);
}

TEST(RealH100, ReadAsOftenAsItChangesKeepsTheReadingsResolution) {
    const auto s = read_every("load.csv", 100 * k_ms);
    EXPECT_FALSE(s.timing.oversampled());
    EXPECT_LT(s.peak_w, 900);
}

} // namespace
} // namespace jp::report
