// SPDX-License-Identifier: BSD-3-Clause
// The tracker's record as the report reads it: in time order, nothing after the
// end. A Python block's usage thread could take a sample after the block's end was
// read; kept, it sorted after the final reading while holding less, and the
// report found the record damaged (cumulative readings that go back).
#include "attrib/tracker.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <unistd.h>

namespace jp::attrib {
namespace {

TEST(Tracker, ASampleLaterThanTheEndIsDroppedAndTheRecordStaysInOrder) {
    TrackerOptions options;
    options.job_cpu = "process-tree"; // this process, read from the real /proc
    options.monitor_is_job = false;
    auto tracker = Tracker::prepare(::getpid(), std::move(options));
    ASSERT_TRUE(tracker);
    tracker->begin(0);
    tracker->sample(50'000'000);
    tracker->sample(300'000'000); // taken after the end below was read
    const auto usage = tracker->finish(200'000'000);
    ASSERT_FALSE(usage.records.empty());
    EXPECT_TRUE(std::ranges::is_sorted(usage.records, {}, &trace::UsageRecord::t_ns));
    EXPECT_EQ(usage.records.back().t_ns, 200'000'000);
    for (const auto& r : usage.records) {
        EXPECT_LE(r.t_ns, 200'000'000);
    }
    // Per package, the cumulative figures never go back.
    for (std::size_t i = 0; i < usage.records.size(); ++i) {
        for (std::size_t j = i + 1; j < usage.records.size(); ++j) {
            if (usage.records[j].package == usage.records[i].package) {
                EXPECT_GE(usage.records[j].job_s, usage.records[i].job_s);
                EXPECT_GE(usage.records[j].busy_s, usage.records[i].busy_s);
            }
        }
    }
}

} // namespace
} // namespace jp::attrib
