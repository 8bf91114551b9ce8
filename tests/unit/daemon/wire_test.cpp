// SPDX-License-Identifier: BSD-3-Clause
#include "daemon_client/wire.hpp"

#include <gtest/gtest.h>

namespace jp::daemon {
namespace {

TEST(LineReader, SplitsLinesAcrossChunksAndDropsCr) {
    LineReader r{100};
    r.append("{\"a\":1}\n{\"b\"");
    EXPECT_EQ(r.next(), "{\"a\":1}");
    EXPECT_FALSE(r.next());
    EXPECT_TRUE(r.partial());
    r.append(":2}\r\n\n");
    EXPECT_EQ(r.next(), "{\"b\":2}");
    EXPECT_EQ(r.next(), "");
    EXPECT_FALSE(r.next());
    EXPECT_FALSE(r.partial());
}

TEST(LineReader, ALineOverTheLimitIsOversizedForGood) {
    LineReader r{8};
    r.append("12345678\n");
    EXPECT_EQ(r.next(), "12345678") << "exactly the limit is fine";
    r.append("123456789");
    EXPECT_FALSE(r.next());
    EXPECT_TRUE(r.oversized()) << "detected before the newline comes";
    r.append("\n{}\n");
    EXPECT_FALSE(r.next()) << "nothing more is read from a peer that broke the protocol";
}

TEST(LineReader, ALongCompleteLineAmongShortOnesIsCaught) {
    LineReader r{4};
    r.append("ok\n0123456789\nok\n");
    EXPECT_EQ(r.next(), "ok");
    EXPECT_FALSE(r.next());
    EXPECT_TRUE(r.oversized());
}

TEST(LineReader, ManyLinesDoNotGrowTheBufferWithoutBound) {
    LineReader r{64};
    for (int i = 0; i < 100'000; ++i) {
        r.append("{\"op\":\"status\"}\n");
        ASSERT_EQ(r.next(), "{\"op\":\"status\"}");
    }
    EXPECT_FALSE(r.partial());
}

TEST(LineReader, ReadsThatEndInsideALineDoNotGrowTheBufferWithoutBound) {
    // Every read ends inside the next request, so the buffer is never empty when more
    // comes: what was taken must leave it all the same.
    LineReader r{64};
    r.append("{\"op\":");
    for (int i = 0; i < 100'000; ++i) {
        r.append("\"status\"}\n{\"op\":");
        ASSERT_EQ(r.next(), "{\"op\":\"status\"}");
        ASSERT_FALSE(r.next());
        ASSERT_LE(r.held(), 64U + 64U + 16U) << "after " << i << " reads";
    }
    EXPECT_TRUE(r.partial());
}

TEST(Wire, ErrorCodesRoundTrip) {
    for (auto code : {ErrorCode::bad_request, ErrorCode::too_large, ErrorCode::hello_first,
                      ErrorCode::unsupported_version, ErrorCode::unknown_op, ErrorCode::denied,
                      ErrorCode::no_such_session, ErrorCode::not_yours, ErrorCode::rate_limited,
                      ErrorCode::too_soon, ErrorCode::too_many_sessions, ErrorCode::shutting_down,
                      ErrorCode::internal}) {
        EXPECT_EQ(error_code_from_string(to_string(code)), code) << to_string(code);
    }
    EXPECT_FALSE(error_code_from_string("nope"));
}

TEST(Wire, SocketComesFromTheEnvironmentOrTheDefault) {
    ::setenv("JOULEPROF_SOCKET", "/tmp/x.sock", 1);
    EXPECT_EQ(default_socket_path(), "/tmp/x.sock");
    ::setenv("JOULEPROF_SOCKET", "", 1);
    EXPECT_EQ(default_socket_path(), "/run/jouleprof/jouleprofd.sock");
    ::unsetenv("JOULEPROF_SOCKET");
    EXPECT_EQ(default_socket_path(), "/run/jouleprof/jouleprofd.sock");
}

} // namespace
} // namespace jp::daemon
