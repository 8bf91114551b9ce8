// SPDX-License-Identifier: BSD-3-Clause
// Programs of a study are found on PATH and, failing that, next to jouleprof.
#include "fake_sysfs.hpp"
#include "process/runner.hpp"

#include <filesystem>
#include <gtest/gtest.h>

namespace jp::process {
namespace {

class ProgramLookup : public ::testing::Test {
protected:
    void SetUp() override {
        fs.add({"/bin/jp-lookup-test-tool", "#!/bin/sh\n", 0755});
        fs.add({"/bin/sh", "#!/bin/sh\n", 0755}); // also on PATH: PATH wins
        fs.add({"/bin/not-executable", "", 0644});
    }
    [[nodiscard]] std::vector<std::filesystem::path> dirs() const { return {"", fs.path("/bin")}; }
    test::FakeSysfs fs;
};

TEST_F(ProgramLookup, FallsBackToTheGivenDirectories) {
    auto found = find_program("jp-lookup-test-tool", dirs());
    ASSERT_TRUE(found) << found.error().message();
    EXPECT_EQ(*found, (fs.path("/bin") / "jp-lookup-test-tool").string());
}

TEST_F(ProgramLookup, PathComesFirst) {
    auto found = find_program("sh", dirs());
    ASSERT_TRUE(found) << found.error().message();
    EXPECT_NE(*found, (fs.path("/bin") / "sh").string());
}

TEST_F(ProgramLookup, NotFoundNamesEveryPlace) {
    for (const char* name : {"jp-no-such-program", "not-executable"}) {
        auto found = find_program(name, dirs());
        ASSERT_FALSE(found) << name;
        EXPECT_EQ(found.error().kind, ErrorKind::not_found);
        EXPECT_NE(found.error().message().find(fs.path("/bin").string()), std::string::npos)
            << found.error().message();
    }
}

TEST_F(ProgramLookup, APathWithASlashIsTakenAsItIs) {
    EXPECT_FALSE(find_program("./jp-lookup-test-tool", dirs()));
    const auto full = (fs.path("/bin") / "jp-lookup-test-tool").string();
    EXPECT_EQ(find_program(full, {}), full);
}

TEST(ExecutableDir, IsTheDirectoryOfTheRunningBinary) {
    const auto dir = executable_dir();
    ASSERT_FALSE(dir.empty());
    EXPECT_TRUE(std::filesystem::exists(dir / "unit_study"));
}

} // namespace
} // namespace jp::process
