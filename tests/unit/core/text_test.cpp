// SPDX-License-Identifier: BSD-3-Clause
#include "core/text.hpp"

#include <gtest/gtest.h>

namespace jp {
namespace {

TEST(Text, InvalidUtf8BecomesTheReplacementCharacter) {
    EXPECT_EQ(valid_utf8("ok é ✓ 🙂"), "ok é ✓ 🙂");
    EXPECT_EQ(valid_utf8("a\xFF"
                         "b"),
              "a\xEF\xBF\xBD"
              "b");
    EXPECT_EQ(valid_utf8("\xC3"), "\xEF\xBF\xBD") << "a cut sequence";
    EXPECT_EQ(valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD") << "overlong";
    EXPECT_EQ(valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD") << "surrogate";
}

TEST(Text, UserNamesWithControlsOrBadBytesAreRefused) {
    EXPECT_EQ(text_problem("gpu-node bs=64 é"), nullptr);
    EXPECT_NE(text_problem("a\nb"), nullptr);
    EXPECT_NE(text_problem("\x1b[2J"), nullptr);
    EXPECT_NE(text_problem("\xC2\x9B"
                           "31m"),
              nullptr)
        << "C1 CSI";
    EXPECT_NE(text_problem("a\xFF"), nullptr);
    EXPECT_NE(text_problem("a\xE2\x80\xA8"
                           "b"),
              nullptr)
        << "U+2028, a line separator";
    EXPECT_NE(text_problem("\xE2\x80\xAE"), nullptr) << "a right-to-left override";
}

TEST(Text, NoControlCharacterReachesATerminal) {
    EXPECT_EQ(terminal_safe("a\x1b[31mred\x07\nnext\tcol"), "a\\x1b[31mred\\x07\nnext\tcol");
    EXPECT_EQ(terminal_safe("\xC2\x9B"
                            "2J"),
              "\\u009b2J");
    EXPECT_EQ(terminal_safe("\r\x7F"), "\\r\\x7f");
    // Bidirectional overrides (Trojan Source) are shown, not obeyed; other text stays.
    EXPECT_EQ(terminal_safe("run\u202Etxt.exe"), "run\\u202etxt.exe");
    EXPECT_EQ(terminal_safe("a\u2066b\u2069 é"), "a\\u2066b\\u2069 é");
    EXPECT_NE(text_problem("label\u202E"), nullptr);
}

TEST(Text, OneLineEscapesNewlinesAndCutsAtACodePoint) {
    EXPECT_EQ(one_line("a\nb\tc", 80), "a\\nb\\tc");
    EXPECT_EQ(one_line("ééééé", 3), "éé…");
    EXPECT_EQ(one_line("abc", 3), "abc");
}

} // namespace
} // namespace jp
