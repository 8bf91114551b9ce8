// SPDX-License-Identifier: BSD-3-Clause
// Files a privileged process acts on (jouleprofd's config, password files,
// libraries): nothing another user could choose or change is read, and the
// check cannot be raced.
#include "sys/trusted_file.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace jp {
namespace {

namespace fs = std::filesystem;

class TrustedFile : public ::testing::Test {
protected:
    void SetUp() override {
        std::string tmpl = (fs::temp_directory_path() / "jp-trusted-XXXXXX").string();
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        m_dir = tmpl;
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }
    fs::path write(const fs::path& p,
                   const std::string& content,
                   fs::perms perms = fs::perms::owner_read | fs::perms::owner_write |
                                     fs::perms::group_read | fs::perms::others_read) {
        fs::create_directories(p.parent_path());
        std::ofstream{p} << content;
        fs::permissions(p, perms);
        return p;
    }
    fs::path m_dir;
};

TEST_F(TrustedFile, ReadsAFileOnlyRootOrItsOwnerCanChange) {
    const auto p = write(m_dir / "etc/jouleprofd.toml", "[daemon]\n");
    auto text = sys::read_trusted(p, "config file");
    ASSERT_TRUE(text) << text.error().message();
    EXPECT_EQ(*text, "[daemon]\n");
}

TEST_F(TrustedFile, ADirectoryOthersMayWriteAnywhereAboveIsRefusedUnlessSticky) {
    const auto p = write(m_dir / "open/deeper/in.toml", "x");
    fs::permissions(m_dir / "open", fs::perms::all);
    auto r = sys::read_trusted(p, "config file");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find((m_dir / "open").string() +
                                       " is writable by other users (mode 0777)"),
              std::string::npos)
        << r.error().message();
    fs::permissions(m_dir / "open", fs::perms::all | fs::perms::sticky_bit);
    EXPECT_TRUE(sys::read_trusted(p, "config file"));
    fs::permissions(p, fs::perms::owner_read | fs::perms::group_write);
    auto group = sys::read_trusted(p, "config file");
    ASSERT_FALSE(group);
    EXPECT_NE(group.error().message().find("writable by other users (mode 0420)"),
              std::string::npos)
        << group.error().message();
}

TEST_F(TrustedFile, AFifoIsRefusedAtOnceNeverWaitedOn) {
    const auto p = m_dir / "fifo.toml";
    ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = sys::read_trusted(p, "config file"); // a blocking open would never return
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("not a regular file"), std::string::npos);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds{5});
}

TEST_F(TrustedFile, ADirectoryOrFileOfAnotherUserIsRefused) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root to give files to another user";
    }
    const auto p = write(m_dir / "theirs/in.toml", "x");
    ASSERT_EQ(::chown((m_dir / "theirs").c_str(), 65534, 65534), 0);
    auto dir = sys::read_trusted(p, "config file");
    ASSERT_FALSE(dir);
    EXPECT_NE(dir.error().message().find("is owned by uid 65534"), std::string::npos)
        << dir.error().message();
    const auto q = write(m_dir / "mine/theirs.toml", "x");
    ASSERT_EQ(::chown(q.c_str(), 65534, 65534), 0);
    auto file = sys::read_trusted(q, "config file");
    ASSERT_FALSE(file);
    EXPECT_NE(file.error().message().find("owned by uid 65534"), std::string::npos);
}

// The path is swapped, again and again, between the trusted file and a link to
// a file in a directory anyone may write (where another user could put what
// they like). Whatever the timing, the other file is never what is read.
TEST_F(TrustedFile, ALinkSwappedInDuringTheCheckIsNeverRead) {
    const auto cfg = write(m_dir / "etc/cfg.toml", "TRUSTED");
    write(m_dir / "anyone/evil.toml", "EVIL");
    fs::permissions(m_dir / "anyone", fs::perms::all);
    const auto other = m_dir / "etc/other";
    fs::create_symlink(m_dir / "anyone/evil.toml", other);
    std::atomic<bool> stop{false};
    std::atomic<long> swaps{0};
    std::thread swapper{[&] {
        while (!stop) {
            if (::renameat2(AT_FDCWD, cfg.c_str(), AT_FDCWD, other.c_str(), RENAME_EXCHANGE) == 0) {
                ++swaps;
            }
        }
    }};
    int trusted = 0;
    int refused = 0;
    int evil = 0;
    for (int i = 0; i < 5000; ++i) {
        auto r = sys::read_trusted(cfg, "config file");
        if (!r) {
            ++refused;
        } else if (*r == "TRUSTED") {
            ++trusted;
        } else {
            ++evil;
        }
    }
    stop = true;
    swapper.join();
    EXPECT_EQ(evil, 0) << "the swapped-in file was read";
    EXPECT_GT(swaps.load(), 100) << "the race was not run";
    EXPECT_GT(refused, 0) << "the link was never seen: the race was not run";
    RecordProperty("trusted", trusted);
    RecordProperty("refused", refused);
}

// As a driver installs libnvidia-ml.so.1 -> libnvidia-ml.so.580.95: a link that is
// root's (or this user's), in a trusted directory, is followed; one another user
// owns is not, and neither is any link where the caller asks for none.
TEST_F(TrustedFile, TrustedLinksAreFollowedOthersNot) {
    write(m_dir / "lib/libx.so.580", "ELF");
    fs::create_symlink("libx.so.580", m_dir / "lib/libx.so.1");
    fs::create_directory(m_dir / "alias");
    fs::create_symlink(m_dir / "lib", m_dir / "alias/lib");
    auto via = sys::read_trusted(m_dir / "alias/lib/../lib/libx.so.1", "library");
    ASSERT_TRUE(via) << via.error().message();
    EXPECT_EQ(*via, "ELF");
    auto no_link = sys::open_trusted(m_dir / "lib/libx.so.1", "password file", false);
    ASSERT_FALSE(no_link);
    EXPECT_NE(no_link.error().message().find("is a symbolic link"), std::string::npos);
    EXPECT_TRUE(sys::open_trusted(m_dir / "lib/libx.so.1", "library", true));
    if (::geteuid() == 0) {
        ASSERT_EQ(::lchown((m_dir / "lib/libx.so.1").c_str(), 65534, 65534), 0);
        auto theirs = sys::read_trusted(m_dir / "lib/libx.so.1", "library");
        ASSERT_FALSE(theirs);
        EXPECT_NE(theirs.error().message().find("is owned by uid 65534"), std::string::npos)
            << theirs.error().message();
    }
}

// A device is never opened at all: opening some has effects (a watchdog).
TEST_F(TrustedFile, ADeviceIsRefusedBeforeItIsOpened) {
    auto r = sys::read_trusted("/dev/null", "config file");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("not a regular file"), std::string::npos);
}

} // namespace
} // namespace jp
