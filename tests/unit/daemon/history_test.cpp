// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/history.hpp"

#include <gtest/gtest.h>

namespace jp::daemon {
namespace {

TEST(History, NumbersReadingsAndKeepsTheNewest) {
    History h{3};
    EXPECT_TRUE(h.empty());
    EXPECT_EQ(h.newest(), 0U);
    for (int i = 1; i <= 5; ++i) {
        h.push({i * 10, static_cast<double>(i)});
    }
    EXPECT_EQ(h.newest(), 5U);
    EXPECT_EQ(h.oldest(), 3U) << "capacity 3: readings 3, 4, 5 remain";
    EXPECT_DOUBLE_EQ(h.at(3).value, 3.0);
    EXPECT_DOUBLE_EQ(h.at(5).value, 5.0);
    EXPECT_EQ(h.latest().t_ns, 50);
}

TEST(History, BeforeItWrapsTheFirstReadingIsNumberOne) {
    History h{10};
    h.push({1, 1.0});
    h.push({2, 2.0});
    EXPECT_EQ(h.oldest(), 1U);
    EXPECT_DOUBLE_EQ(h.at(1).value, 1.0);
}

} // namespace
} // namespace jp::daemon
