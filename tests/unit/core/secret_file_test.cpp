// SPDX-License-Identifier: BSD-3-Clause
// Password files: only a regular file its owner alone can read is accepted,
// and no error ever quotes what the file holds.
#include "sys/secret_file.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace jp {
namespace {

namespace fs = std::filesystem;

class SecretFile : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() / ("jp-secret-" + std::to_string(::getpid()));
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    fs::path write(const std::string& name, const std::string& content, fs::perms perms) {
        const auto p = m_dir / name;
        std::ofstream{p} << content;
        fs::permissions(p, perms);
        return p;
    }
    fs::path m_dir;
};

constexpr auto k_owner_rw = fs::perms::owner_read | fs::perms::owner_write;

TEST_F(SecretFile, FirstLineOfAnOwnerOnlyFile) {
    auto p = write("pw", "s3cret!\nsecond line\n", k_owner_rw);
    auto s = sys::read_secret_file(p);
    ASSERT_TRUE(s) << s.error().message();
    EXPECT_EQ(*s, "s3cret!");
    auto crlf = sys::read_secret_file(write("crlf", "abc\r\n", fs::perms::owner_read));
    ASSERT_TRUE(crlf);
    EXPECT_EQ(*crlf, "abc");
}

TEST_F(SecretFile, OthersMayReadItIsRefusedWithoutQuotingIt) {
    for (const auto perms :
         {k_owner_rw | fs::perms::group_read, k_owner_rw | fs::perms::others_read}) {
        auto p = write("open", "hunter2\n", perms);
        auto s = sys::read_secret_file(p);
        ASSERT_FALSE(s);
        const auto m = s.error().message();
        EXPECT_NE(m.find("readable by its owner only"), std::string::npos) << m;
        EXPECT_EQ(m.find("hunter2"), std::string::npos) << m;
        EXPECT_NE(s.error().hint.find("chmod 0600"), std::string::npos);
    }
}

TEST_F(SecretFile, SymlinksDirectoriesMissingAndEmptyFilesAreRefused) {
    auto target = write("real", "pw\n", k_owner_rw);
    fs::create_symlink(target, m_dir / "link");
    auto link = sys::read_secret_file(m_dir / "link");
    ASSERT_FALSE(link);
    EXPECT_NE(link.error().message().find("symbolic link"), std::string::npos)
        << link.error().message();
    fs::create_directory(m_dir / "d");
    fs::permissions(m_dir / "d", fs::perms::owner_all);
    auto dir = sys::read_secret_file(m_dir / "d");
    ASSERT_FALSE(dir);
    EXPECT_NE(dir.error().message().find("not a regular file"), std::string::npos)
        << dir.error().message();
    auto missing = sys::read_secret_file(m_dir / "nope");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().kind, ErrorKind::not_found);
    auto empty = sys::read_secret_file(write("empty", "\n", k_owner_rw));
    ASSERT_FALSE(empty);
    EXPECT_NE(empty.error().message().find("is empty"), std::string::npos);
}

TEST_F(SecretFile, AFileOfAnotherUserIsRefused) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root to give the file to another user";
    }
    auto p = write("theirs", "pw\n", k_owner_rw);
    ASSERT_EQ(::chown(p.c_str(), 65534, 65534), 0);
    auto s = sys::read_secret_file(p);
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message().find("owned by uid 65534"), std::string::npos)
        << s.error().message();
}

} // namespace
} // namespace jp
