// SPDX-License-Identifier: BSD-3-Clause
// Each channel's longest read call in a run is kept in the trace (the read_time table,
// made at the first run that has one) and comes back by channel; a trace without it,
// and a channel without one, read as 0.
#include "fake_sysfs.hpp"
#include "trace/reader.hpp"
#include "trace/time_range.hpp"
#include "trace/writer.hpp"

#include <cstdint>
#include <gtest/gtest.h>
#include <optional>
#include <sqlite3.h>

namespace jp::trace {
namespace {

std::vector<Channel> two() {
    Channel gpu;
    gpu.name = "gpu0";
    gpu.domain = Domain::gpu;
    gpu.quantity = Quantity::energy;
    gpu.backend = "nvml";
    Channel daemon = gpu;
    daemon.name = "cpu0.package";
    daemon.domain = Domain::cpu_package;
    daemon.backend = "jouleprofd";
    return {gpu, daemon};
}

// A writer of a new trace at path with the two channels, or nullopt (and a failure).
std::optional<Writer> trace_of_two(const std::filesystem::path& path) {
    auto w = Writer::create(path, {});
    EXPECT_TRUE(w) << w.error().message();
    if (!w || !w->add_channels(two())) {
        ADD_FAILURE() << "no trace at " << path;
        return std::nullopt;
    }
    return std::move(*w);
}

std::int64_t new_run(Writer& w) {
    RunInfo run;
    run.label = "r";
    run.kind = "measure";
    return w.begin_run(run).value_or(0);
}

TEST(ReadTime, EachRunsLongestCallComesBackByChannel) {
    test::FakeSysfs tmp;
    const auto path = tmp.path("/t.jptrace");
    std::int64_t first = 0;
    std::int64_t second = 0;
    {
        auto w = trace_of_two(path);
        ASSERT_TRUE(w);
        first = new_run(*w);
        second = new_run(*w);
        const std::vector<std::int64_t> none{0, 0};
        ASSERT_TRUE(w->add_read_times(first, none));
        ASSERT_TRUE(w->commit());
        auto r = Reader::open(path);
        ASSERT_TRUE(r) << r.error().message();
        EXPECT_EQ(*r->read_times(first), none) << "no table yet: nothing recorded reads as 0";
        const std::vector<std::int64_t> slow{4'200'000, 0};
        ASSERT_TRUE(w->add_read_times(second, std::vector<std::int64_t>{1, 0}));
        // A call of years (a monitor stalled in a read) is kept as a minute, the most a
        // trace holds: a wide bound, never a narrower one.
        ASSERT_TRUE(w->add_read_times(first, std::vector<std::int64_t>{INT64_MAX, 0}));
        ASSERT_TRUE(w->add_read_times(second, slow)); // written again: replaced
        ASSERT_TRUE(w->commit());
    }
    auto r = Reader::open(path);
    ASSERT_TRUE(r) << r.error().message();
    const auto times = r->read_times(second);
    ASSERT_TRUE(times) << times.error().message();
    EXPECT_EQ(*times, (std::vector<std::int64_t>{4'200'000, 0}));
    EXPECT_EQ(*r->read_times(first), (std::vector<std::int64_t>{k_max_read_ns, 0}));
}

TEST(ReadTime, ADamagedOrForeignTableIsAsIfNoneAndDuplicatesTakeTheLongest) {
    test::FakeSysfs tmp;
    const auto path = tmp.path("/d.jptrace");
    std::int64_t id = 0;
    {
        auto w = trace_of_two(path);
        ASSERT_TRUE(w);
        id = new_run(*w);
        ASSERT_TRUE(w->commit());
    }
    const auto exec = [&](const char* sql) {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK)
            << sqlite3_errmsg(db);
        sqlite3_close(db);
    };
    exec("CREATE TABLE read_time (run_id, channel_id)"); // no longest_ns
    {
        auto r = Reader::open(path);
        ASSERT_TRUE(r) << r.error().message();
        const auto times = r->read_times(id);
        ASSERT_TRUE(times) << "a report is never refused for it";
        EXPECT_EQ(*times, (std::vector<std::int64_t>{0, 0}));
    }
    exec("DROP TABLE read_time; CREATE TABLE read_time (run_id, channel_id, longest_ns);"
         "INSERT INTO read_time VALUES (1, 1, 1000), (1, 1, 4000000000), (1, 1, 2000),"
         "(1, 2, -5), (1, 9, 1000), (1, 2, 'x'), (1, 2, 70000000000)");
    auto r = Reader::open(path);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(*r->read_times(id), (std::vector<std::int64_t>{4'000'000'000, 0}))
        << "the longest of duplicates; no channel 9; no negative or text time, none over the "
           "minute a writer keeps at most";
}

} // namespace
} // namespace jp::trace
