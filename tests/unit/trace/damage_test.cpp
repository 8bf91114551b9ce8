// SPDX-License-Identifier: BSD-3-Clause
// A file that does not open as a trace says what is wrong with it: empty, not
// SQLite at all, cut short (a copy taken while it was written), or an SQLite
// file of something else.
#include "fake_sysfs.hpp"
#include "trace/damage.hpp"
#include "trace/reader.hpp"
#include "trace/sqlite.hpp"
#include "trace/writer.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>

namespace jp::trace {
namespace {

namespace fs = std::filesystem;

class Damage : public ::testing::Test {
protected:
    std::string open_error(const fs::path& p) {
        auto r = Reader::open(p);
        EXPECT_FALSE(r) << p;
        return r ? std::string{} : r.error().message();
    }
    void write(const fs::path& p, const std::string& bytes) {
        std::ofstream(p, std::ios::binary) << bytes;
    }
    test::FakeSysfs dir;
};

TEST_F(Damage, EachKindOfDamageIsNamed) {
    const auto good = dir.path("/good.jptrace");
    {
        auto w = Writer::create(good, {{"label", "x"}});
        ASSERT_TRUE(w) << w.error().message();
        Channel c;
        c.name = "cpu0.package";
        ASSERT_TRUE(w->add_channels(std::vector<Channel>{c}));
        ASSERT_TRUE(w->commit());
    }
    EXPECT_FALSE(file_damage(good)) << *file_damage(good);
    ASSERT_TRUE(Reader::open(good));

    const auto empty = dir.path("/empty.jptrace");
    write(empty, "");
    EXPECT_EQ(open_error(empty), empty.string() + ": an empty file (0 bytes), not a trace");

    const auto text = dir.path("/text.jptrace");
    write(text, "label,energy\nx,1\n");
    EXPECT_EQ(open_error(text), text.string() +
                                    ": not a trace: a trace is an SQLite file, and this 17-byte "
                                    "file does not begin with SQLite's header");

    std::ifstream in(good, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), {}};
    ASSERT_GT(bytes.size(), 4096U);
    const auto cut = dir.path("/cut.jptrace");
    write(cut, bytes.substr(0, 3000));
    const auto msg = open_error(cut);
    EXPECT_NE(msg.find("a truncated trace: SQLite's header says " + std::to_string(bytes.size()) +
                       " bytes, the file holds 3000"),
              std::string::npos)
        << msg;
    const auto header_only = dir.path("/head.jptrace");
    write(header_only, bytes.substr(0, 60));
    EXPECT_NE(open_error(header_only).find("shorter than SQLite's 100-byte header"),
              std::string::npos);

    const auto other = dir.path("/other.sqlite");
    {
        auto db = Database::open(other, Database::Mode::create);
        ASSERT_TRUE(db);
        ASSERT_TRUE(db->exec("CREATE TABLE t(x); INSERT INTO t VALUES (1);"));
    }
    EXPECT_NE(open_error(other).find("an SQLite file, but not a jouleprof trace"),
              std::string::npos)
        << open_error(other);
}

// Damage inside the file (a table's page overwritten: SQLite's header is whole) is
// found where that table is read, and refuses the trace in one line, never reads as a
// table that ends early (a user's 0 J "measurement" from a trace whose channel table was
// damaged, exit 0).
TEST_F(Damage, APageDamagedInsideRefusesTheTraceWhereItIsRead) {
    const auto good = dir.path("/good.jptrace");
    std::int64_t run_id = 0;
    {
        auto w = Writer::create(good, {{"label", "x"}});
        ASSERT_TRUE(w) << w.error().message();
        std::vector<Channel> chans(40);
        for (std::size_t i = 0; i < chans.size(); ++i) {
            chans[i].name = fmt::format("cpu{}.package", i);
        }
        ASSERT_TRUE(w->add_channels(chans));
        RunInfo run;
        run.label = "x";
        run.start_ns = 1;
        auto id = w->begin_run(run);
        ASSERT_TRUE(id);
        run_id = *id;
        for (int i = 0; i < 200; ++i) {
            ASSERT_TRUE(w->add_event({run_id, -1, 10 + i, "note", std::string(40, 'e')}));
        }
        ASSERT_TRUE(w->commit());
    }
    const auto page_of = [&](const char* table) {
        auto db = Database::open(good, Database::Mode::read_only);
        EXPECT_TRUE(db);
        auto size = db->prepare("PRAGMA page_size");
        auto root = db->prepare(fmt::format(
            "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = '{}'", table));
        EXPECT_TRUE(size && root && size->step().value_or(false) && root->step().value_or(false));
        return std::pair{size->column_int(0), root->column_int(0)};
    };
    std::ifstream in(good, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), {}};
    const auto damaged = [&](const char* table, const char* name) {
        const auto [page_size, root] = page_of(table);
        auto copy = bytes;
        const auto at = static_cast<std::size_t>((root - 1) * page_size) + 8;
        EXPECT_LT(at + 700, copy.size());
        std::fill_n(copy.begin() + static_cast<std::ptrdiff_t>(at), 700, '\xa5');
        const auto p = dir.path(name);
        write(p, copy);
        return p;
    };
    const auto channels = damaged("channel", "/channels.jptrace");
    EXPECT_EQ(open_error(channels), channels.string() +
                                        ": a damaged trace: SQLite cannot read it (database disk "
                                        "image is malformed)");
    const auto events = damaged("event", "/events.jptrace");
    auto r = Reader::open(events);
    ASSERT_TRUE(r) << "the damage is only where events are read: " << r.error().message();
    const auto e = r->events(run_id);
    ASSERT_FALSE(e) << e->size() << " events";
    EXPECT_NE(e.error().message().find("a damaged trace: SQLite cannot read it"), std::string::npos)
        << e.error().message();
}

} // namespace
} // namespace jp::trace
