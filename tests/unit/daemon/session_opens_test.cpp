// SPDX-License-Identifier: BSD-3-Clause
// New sessions are rationed per user (daemon/ledger.hpp, CallBudget): each is a job the
// node's ledger keeps for everyone's views, so one user opening and closing them as fast as
// it can (an attack seen in a review: 66,000 in 30 s) would push other users' jobs out of
// the ledger and make a full-resolution view block the daemon for seconds.
#include "core/clock.hpp"
#include "daemon_world.hpp"

#include <gtest/gtest.h>

namespace jp::daemon {
namespace {

using nlohmann::json;
using test::World;

TEST(SessionOpens, OneUserOpeningAndClosingFastIsHeldToAFewASecond) {
    World w;
    auto mallory = w.greeted(1000);
    auto bob = w.greeted(1001);
    auto root = w.greeted(0);
    const auto now = mono_ns();
    const auto open_close = [&](Connection& c, std::int64_t t) {
        const auto r = w.call(c, {{"op", "open"}}, t);
        if (r["ok"] == true) {
            EXPECT_EQ(w.call(c, {{"op", "close"}, {"session", r["session"]}}, t)["ok"], true);
        }
        return r;
    };
    int opened = 0;
    json refused;
    for (int i = 0; i < 200 && refused.is_null(); ++i) {
        const auto r = open_close(*mallory, now);
        if (r["ok"] == true) {
            ++opened;
        } else {
            refused = r;
        }
    }
    EXPECT_EQ(opened, 64) << "a burst of 64";
    ASSERT_EQ(refused["error"], "rate_limited") << refused;
    EXPECT_NEAR(refused["retry_after_ms"].get<double>(), 250, 2) << "4 a second after";
    EXPECT_NE(refused["message"].get<std::string>().find("64 at once and 4 a second"),
              std::string::npos)
        << refused;
    // A second later: four more, then refused again.
    constexpr std::int64_t s = 1'000'000'000;
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(open_close(*mallory, now + s)["ok"], true) << i;
    }
    EXPECT_EQ(open_close(*mallory, now + s)["error"], "rate_limited");
    // Others are not held back by it; root is not rationed.
    EXPECT_EQ(open_close(*bob, now + s)["ok"], true);
    for (int i = 0; i < 100; ++i) {
        ASSERT_EQ(open_close(*root, now)["ok"], true) << i;
    }
}

} // namespace
} // namespace jp::daemon
