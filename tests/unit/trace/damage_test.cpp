// SPDX-License-Identifier: BSD-3-Clause
// A file that does not open as a trace says what is wrong with it: empty, not
// SQLite at all, cut short (a copy taken while it was written), or an SQLite
// file of something else.
#include "fake_sysfs.hpp"
#include "trace/damage.hpp"
#include "trace/reader.hpp"
#include "trace/sqlite.hpp"
#include "trace/writer.hpp"

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

} // namespace
} // namespace jp::trace
