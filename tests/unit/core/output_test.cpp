// SPDX-License-Identifier: BSD-3-Clause
#include "fake_sysfs.hpp"
#include "sys/output.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace jp::sys {
namespace {

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in{p, std::ios::binary};
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

WriteTo text(std::string s) {
    return [s = std::move(s)](std::ostream& o) -> Result<void> {
        o << s;
        return {};
    };
}

class Output : public ::testing::Test {
protected:
    test::FakeSysfs fs{{"/in.jptrace", "trace"}, {"/old.txt", "old"}};
    std::filesystem::path in = fs.path("/in.jptrace");
};

TEST_F(Output, AnInputOrItsSqliteFilesIsNeverAnOutputEvenWithForce) {
    std::filesystem::create_symlink(in, fs.path("/link"));
    std::filesystem::create_hard_link(in, fs.path("/hard"));
    for (const auto* name : {"/in.jptrace", "/in.jptrace-wal", "/in.jptrace-shm",
                             "/in.jptrace-journal", "/link", "/hard", "/./in.jptrace"}) {
        const auto r = write_output(fs.path(name), {{in}, true}, text("x"));
        ASSERT_FALSE(r) << name;
        EXPECT_NE(r.error().message().find("write the output elsewhere"), std::string::npos);
    }
    EXPECT_EQ(slurp(in), "trace");
}

TEST_F(Output, AnExistingFileIsReplacedOnlyWithForce) {
    const auto out = fs.path("/old.txt");
    const auto r = write_output(out, {{in}, false}, text("new"));
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("already exists (use --force"), std::string::npos);
    EXPECT_EQ(slurp(out), "old");
    ASSERT_TRUE(write_output(out, {{in}, true}, text("new")));
    EXPECT_EQ(slurp(out), "new");
}

TEST_F(Output, AFailedWriteLeavesWhatWasThereAndNoTemporaryFile) {
    const auto out = fs.path("/old.txt");
    const auto r = write_output(out, {{}, true}, [](std::ostream& o) -> Result<void> {
        o << "half";
        return fail(ErrorKind::io, "writer", "gave up");
    });
    ASSERT_FALSE(r);
    EXPECT_EQ(slurp(out), "old");
    for (const auto& e : std::filesystem::directory_iterator(fs.path("/"))) {
        EXPECT_EQ(e.path().filename().string().find(".jp-"), std::string::npos) << e.path();
    }
}

TEST_F(Output, ADirectoryOrAMissingDirectoryIsAClearError) {
    EXPECT_NE(write_output(fs.path("/"), {}, text("x")).error().message().find("is a directory"),
              std::string::npos);
    EXPECT_NE(write_output(fs.path("/no/such/f.html"), {}, text("x"))
                  .error()
                  .message()
                  .find("does not exist"),
              std::string::npos);
}

TEST_F(Output, AnOutputDirectoryThatHoldsFilesNeedsForce) {
    EXPECT_TRUE(prepare_output_dir(fs.path("/new/dir"), false));
    EXPECT_TRUE(std::filesystem::is_directory(fs.path("/new/dir")));
    EXPECT_TRUE(prepare_output_dir(fs.path("/new/dir"), false)) << "empty: fine";
    EXPECT_FALSE(prepare_output_dir(fs.path("/"), false));
    EXPECT_TRUE(prepare_output_dir(fs.path("/"), true));
    EXPECT_FALSE(prepare_output_dir(fs.path("/old.txt"), true)) << "not a directory";
}

} // namespace
} // namespace jp::sys
