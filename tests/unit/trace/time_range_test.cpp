// SPDX-License-Identifier: BSD-3-Clause
// A trace is a file from anyone: a time beyond ±k_max_time_ns (73 years from
// its epoch) in a run, a sample, a marker, an event or a channel's timing is
// corruption, refused with one error naming the file, so that what reads the
// trace can subtract and add its times without overflowing (the `trace` fuzz
// target found a run near 2^63 ns that overflowed the power grid's windows).
#include "fake_sysfs.hpp"
#include "trace/reader.hpp"
#include "trace/sqlite.hpp"
#include "trace/time_range.hpp"
#include "trace/writer.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace jp::trace {
namespace {

class TraceTimeRange : public ::testing::Test {
protected:
    // One run of an energy channel with a marker and an event, at `t` ns.
    void write(std::int64_t t) {
        for (const char* suffix : {"", "-wal", "-shm"}) {
            std::filesystem::remove(path.string() + suffix);
        }
        auto w = Writer::create(path, {});
        ASSERT_TRUE(w) << w.error().message();
        Channel c;
        c.name = "cpu0.package";
        c.quantity = Quantity::energy;
        ASSERT_TRUE(w->add_channels(std::span{&c, 1}));
        RunInfo run;
        run.label = "edge";
        run.start_ns = t;
        auto id = w->begin_run(run);
        ASSERT_TRUE(id) << id.error().message();
        const std::vector<SampleRecord> samples{{0, k_flag_edge, t, 0.0},
                                                {0, 0, t + 1'000'000'000, 50.0}};
        ASSERT_TRUE(w->append(samples, *id));
        ASSERT_TRUE(w->add_marker({*id, t + 10, "point", "m"}));
        ASSERT_TRUE(w->add_event({*id, 0, t + 20, "stuck", "test"}));
        run.id = *id;
        run.end_ns = t + 1'000'000'000;
        run.status = "complete";
        ASSERT_TRUE(w->end_run(run));
        ASSERT_TRUE(w->commit());
        run_id = *id;
    }
    void sql(const std::string& statement) {
        auto db = Database::open(path, Database::Mode::create);
        ASSERT_TRUE(db) << db.error().message();
        ASSERT_TRUE(db->exec(statement));
    }
    static void expect_refused(const Error& e, std::string_view what) {
        EXPECT_NE(e.message().find(what), std::string::npos) << e.message();
        EXPECT_NE(e.message().find("out of range (the file is corrupt)"), std::string::npos)
            << e.message();
        EXPECT_NE(e.message().find("t.jptrace"), std::string::npos) << e.message();
    }
    test::FakeSysfs tmp;
    std::filesystem::path path = tmp.path("/t.jptrace");
    std::int64_t run_id = 0;
};

TEST_F(TraceTimeRange, TimesAtTheRangesEdgeRead) {
    write(k_max_time_ns - 1'000'000'000);
    auto r = Reader::open(path);
    ASSERT_TRUE(r) << r.error().message();
    auto s = r->samples(run_id, 0);
    ASSERT_TRUE(s) << s.error().message();
    ASSERT_EQ(s->points.size(), 2U);
    EXPECT_EQ(s->points[1].t_ns, k_max_time_ns);
    EXPECT_TRUE(r->markers(run_id));
    EXPECT_TRUE(r->events(run_id));
    auto last = r->last_sample_time(run_id);
    ASSERT_TRUE(last && *last);
    EXPECT_EQ(**last, k_max_time_ns);
}

TEST_F(TraceTimeRange, ARunBeyondTheRangeIsRefusedWhenOpened) {
    write(0);
    sql("UPDATE run SET start_ns = 9146510603218827254");
    auto r = Reader::open(path);
    ASSERT_FALSE(r);
    expect_refused(r.error(), "a run's start or end of 9146510603218827254 ns");

    sql("UPDATE run SET start_ns = 0, end_ns = -9146510603218827254");
    r = Reader::open(path);
    ASSERT_FALSE(r);
    expect_refused(r.error(), "a run's start or end");
}

TEST_F(TraceTimeRange, AChannelsTimingBeyondTheRangeIsRefusedWhenOpened) {
    write(0);
    sql(fmt::format("UPDATE channel SET update_ns = {}", k_max_time_ns + 1));
    auto r = Reader::open(path);
    ASSERT_FALSE(r);
    expect_refused(r.error(), "an update period");
    sql("UPDATE channel SET update_ns = NULL, averaging_ns = -1");
    r = Reader::open(path);
    ASSERT_FALSE(r);
    expect_refused(r.error(), "an averaging window");
}

TEST_F(TraceTimeRange, ASampleMarkerOrEventBeyondTheRangeIsAnErrorWhereItIsRead) {
    write(k_max_time_ns - 500'000'000); // its second sample is past the range
    sql("UPDATE run SET end_ns = start_ns");
    auto r = Reader::open(path);
    ASSERT_TRUE(r) << r.error().message(); // the run's start and end are inside it
    auto s = r->samples(run_id, 0);
    ASSERT_FALSE(s);
    expect_refused(s.error(), "a sample time");
    auto last = r->last_sample_time(run_id);
    ASSERT_FALSE(last);
    expect_refused(last.error(), "a sample time");
    auto m = r->markers(run_id);
    ASSERT_TRUE(m) << "the marker is inside the range";

    write(0);
    sql(fmt::format("UPDATE marker SET t_ns = {}", -k_max_time_ns - 1));
    sql(fmt::format("UPDATE event SET t_ns = {}", k_max_time_ns + 1));
    r = Reader::open(path);
    ASSERT_TRUE(r) << r.error().message();
    m = r->markers(run_id);
    ASSERT_FALSE(m);
    expect_refused(m.error(), "a marker's time");
    auto e = r->events(run_id);
    ASSERT_FALSE(e);
    expect_refused(e.error(), "an event's time");
}

} // namespace
} // namespace jp::trace
