// SPDX-License-Identifier: BSD-3-Clause
#include "markers/protocol.hpp"

#include <gtest/gtest.h>

namespace jp::markers {
namespace {

TEST(MarkerProtocol, RoundTripsEveryKind) {
    for (Kind k : {Kind::begin, Kind::end, Kind::point}) {
        const auto text = format_message(k, 123456789012345, "epoch 3 / train");
        const auto m = parse_message(text);
        ASSERT_TRUE(m) << m.error();
        EXPECT_EQ(m->kind, k);
        EXPECT_EQ(m->t_mono_ns, 123456789012345);
        EXPECT_EQ(m->name, "epoch 3 / train");
    }
    EXPECT_EQ(format_message(Kind::begin, 42, "train"), "jp1 begin 42 train");
}

TEST(MarkerProtocol, KindsAreExactWords) {
    EXPECT_EQ(parse_kind("begin"), Kind::begin);
    EXPECT_EQ(parse_kind("end"), Kind::end);
    EXPECT_EQ(parse_kind("point"), Kind::point);
    EXPECT_FALSE(parse_kind("Begin"));
    EXPECT_FALSE(parse_kind("phase"));
    EXPECT_FALSE(parse_kind(""));
}

TEST(MarkerProtocol, NamesAreOneNonEmptyLineOfAtMost200Bytes) {
    EXPECT_EQ(name_problem("train"), nullptr);
    EXPECT_EQ(name_problem(std::string(200, 'x')), nullptr);
    EXPECT_EQ(name_problem("süß ☃"), nullptr);
    EXPECT_NE(name_problem(""), nullptr);
    EXPECT_NE(name_problem(std::string(201, 'x')), nullptr);
    EXPECT_NE(name_problem("two\nlines"), nullptr);
    EXPECT_NE(name_problem("cr\r"), nullptr);
    EXPECT_NE(name_problem(std::string_view{"nul\0x", 5}), nullptr);
}

TEST(MarkerProtocol, RejectsMalformedMessages) {
    for (std::string_view bad : {
             "",
             "jp2 begin 1 x",
             "jp1",
             "jp1 begin",
             "jp1 begin 1",
             "jp1 begin 1 ",
             "jp1 start 1 x",
             "jp1 begin -5 x",
             "jp1 begin +5 x",
             "jp1 begin 12a x",
             "jp1 begin  x",
             "jp1 begin 99999999999999999999999 x",
             "jp1 point 1 two\nlines",
         }) {
        EXPECT_FALSE(parse_message(bad)) << "accepted: " << bad;
    }
    const auto too_long = "jp1 point 1 " + std::string(201, 'x');
    EXPECT_FALSE(parse_message(too_long));
    EXPECT_TRUE(parse_message("jp1 point 1 " + std::string(200, 'x')));
    EXPECT_LE(("jp1 point 9223372036854775807 " + std::string(200, 'x')).size(), k_max_message);
}

TEST(MarkerProtocol, ErrorsAreOneLine) {
    const auto m = parse_message("jp1 st\nart 1 x");
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().find('\n'), std::string::npos) << m.error();
}

TEST(MarkerProtocol, TruncationKeepsUtf8Whole) {
    EXPECT_EQ(truncate_utf8("abc", 5), "abc");
    EXPECT_EQ(truncate_utf8("abcdef", 3), "abc");
    // "aé" is 61 C3 A9: cutting at 2 would split é.
    EXPECT_EQ(truncate_utf8("a\xC3\xA9z", 2), "a");
    EXPECT_EQ(truncate_utf8("a\xC3\xA9z", 3), "a\xC3\xA9");
}

} // namespace
} // namespace jp::markers
