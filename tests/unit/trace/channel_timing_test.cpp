// SPDX-License-Identifier: BSD-3-Clause
// A channel's update period and averaging window (a BMC's "1 s averages") are
// stored in the trace; a trace written before those columns existed still
// reads, with the period its backend implies and no window.
#include "fake_sysfs.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

namespace jp::trace {
namespace {

std::vector<Channel> bmc_and_rapl() {
    Channel bmc;
    bmc.name = "node";
    bmc.domain = Domain::node;
    bmc.quantity = Quantity::power;
    bmc.backend = "ipmi";
    bmc.source = "ipmi:dcmi in-band /dev/ipmi0";
    bmc.averaging_ns = 1'000'000'000;
    bmc.update_ns = 1'000'000'000;
    Channel rapl;
    rapl.name = "cpu0.package";
    rapl.domain = Domain::cpu_package;
    rapl.quantity = Quantity::energy;
    rapl.backend = "powercap";
    return {bmc, rapl};
}

TEST(ChannelTiming, UpdatePeriodAndAveragingWindowComeBack) {
    test::FakeSysfs tmp;
    const auto path = tmp.path("/t.jptrace");
    {
        auto w = Writer::create(path, {});
        ASSERT_TRUE(w) << w.error().message();
        ASSERT_TRUE(w->add_channels(bmc_and_rapl()));
        ASSERT_TRUE(w->commit());
    }
    auto r = Reader::open(path);
    ASSERT_TRUE(r) << r.error().message();
    const auto& ch = r->channels();
    ASSERT_EQ(ch.size(), 2U);
    EXPECT_EQ(ch[0].averaging_ns, 1'000'000'000);
    EXPECT_EQ(ch[0].update_ns, 1'000'000'000);
    EXPECT_FALSE(ch[1].averaging_ns);
    EXPECT_EQ(ch[1].update_ns, 1'000'000) << "not stored: what powercap implies (RAPL ~1 ms)";
}

TEST(ChannelTiming, ATraceWithoutTheColumnsReadsWithTheBackendsPeriod) {
    test::FakeSysfs tmp;
    const auto path = tmp.path("/old.jptrace");
    {
        auto w = Writer::create(path, {});
        ASSERT_TRUE(w) << w.error().message();
        ASSERT_TRUE(w->add_channels(bmc_and_rapl()));
        ASSERT_TRUE(w->commit());
    }
    // The channel table as it was before the two columns (block rows keep their ids).
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    for (const char* sql :
         {"CREATE TABLE old AS SELECT id, name, domain, quantity, unit, provenance, backend, "
          "source, device, wrap_joules, limit_watts, counted, parent FROM channel",
          "DROP TABLE channel", "ALTER TABLE old RENAME TO channel"}) {
        EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK)
            << sqlite3_errmsg(db);
    }
    sqlite3_close(db);
    auto r = Reader::open(path);
    ASSERT_TRUE(r) << r.error().message();
    const auto& ch = r->channels();
    ASSERT_EQ(ch.size(), 2U);
    EXPECT_FALSE(ch[0].averaging_ns);
    EXPECT_EQ(ch[1].update_ns, 1'000'000) << "powercap: RAPL updates about every millisecond";
}

} // namespace
} // namespace jp::trace
