// SPDX-License-Identifier: BSD-3-Clause
// Helper programs (scontrol, sstat) run without a shell, within a time limit,
// and a program that hangs is stopped and reaped, never waited for.
#include "sys/command.hpp"

#include <chrono>
#include <gtest/gtest.h>

namespace jp {
namespace {

using namespace std::chrono_literals;

TEST(RunCommand, CapturesOutputErrorsAndExitStatus) {
    auto r = sys::run_command({"sh", "-c", "echo out; echo err >&2; exit 3"}, 5s);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(r->out, "out\n");
    EXPECT_EQ(r->err, "err\n");
    EXPECT_EQ(r->exit_code, 3);
    auto args = sys::run_command({"printf", "%s|", "a b", "$HOME", ";"}, 5s);
    ASSERT_TRUE(args);
    EXPECT_EQ(args->out, "a b|$HOME|;|") << "arguments reach the program as they are";
}

TEST(RunCommand, AHangingProgramIsStoppedAtTheLimit) {
    auto r = sys::run_command({"sleep", "30"}, 200ms);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("gave no answer within 200 ms"), std::string::npos)
        << r.error().message();
    // One that closes its output but goes on running is stopped too.
    auto quiet = sys::run_command({"sh", "-c", "exec >&- 2>&-; sleep 30"}, 200ms);
    ASSERT_FALSE(quiet);
    EXPECT_NE(quiet.error().message().find("did not exit within"), std::string::npos)
        << quiet.error().message();
}

TEST(RunCommand, AProgramThatIsNotThereIsOneLine) {
    auto r = sys::run_command({"jp-no-such-program"}, 1s);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("jp-no-such-program: cannot run it"), std::string::npos)
        << r.error().message();
    EXPECT_FALSE(sys::run_command({}, 1s));
}

TEST(RunCommand, OutputIsBounded) {
    auto r = sys::run_command({"head", "-c", "3000000", "/dev/zero"}, 10s);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(r->out.size(), std::size_t{1} << 20);
    EXPECT_EQ(r->exit_code, 0) << "read to the end, kept the first MiB";
}

} // namespace
} // namespace jp
