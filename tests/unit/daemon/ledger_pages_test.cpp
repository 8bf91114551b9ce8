// SPDX-License-Identifier: BSD-3-Clause
// A grouped ledger view in pages (daemon/ledger.hpp's k_grouped_page numbers each; 1,000
// here, so that a small ledger makes several): the
// ledger's pages, asked one after another from where each says to go on, join into the
// whole view; jouleprof's query (sensors/jouleprofd/ledger_query.hpp) asks them in turn over
// a real socket and refuses pages that do not join.
#include "daemon/connection.hpp"
#include "daemon/ledger.hpp"
#include "daemon/ops.hpp"
#include "scripted_server.hpp"
#include "sensors/jouleprofd/ledger_query.hpp"

#include <atomic>
#include <gtest/gtest.h>

namespace jp::daemon {
namespace {

using nlohmann::json;

constexpr Nanos k_timeout{std::chrono::seconds{2}};
constexpr int k_cpus = 16;
constexpr int k_jobs = 200;
constexpr std::size_t k_page = 1000;   // numbers: 1000 / 17 = 58 segments a page
constexpr std::size_t k_per_page = 58; // 401 segments in 7 pages
constexpr std::int64_t k_end = 10 * k_jobs + 100;

// A 16-CPU session beside 200 jobs of another user, each on every other CPU for 5 ns of
// every 10; asked with a group per CPU, so a page holds 1,000 / 17 segments.
struct Pages : ::testing::Test {
    Pages() {
        std::vector<int> all;
        for (int c = 0; c < k_cpus; ++c) {
            all.push_back(c);
            groups.push_back({c});
        }
        ledger.open("victim", "victim", 1000, all, 0);
        for (int k = 0; k < k_jobs; ++k) {
            std::vector<int> every_other;
            for (int c = k % 2; c < k_cpus; c += 2) {
                every_other.push_back(c);
            }
            const auto id = "x" + std::to_string(k);
            ledger.open(id, id, 1001, every_other, 10 * k + 10);
            ledger.close(id, 10 * k + 15);
        }
    }
    // Segment i's sum for CPU c: held by two while job (i - 1) / 2 held it, else alone.
    static double expected(std::size_t i, int c) {
        const auto k = static_cast<int>((i - 1) / 2);
        return i % 2 == 1 && c % 2 == k % 2 ? 0.5 : 1.0;
    }
    Ledger ledger{Ledger::k_max_closed, Ledger::k_max_closed_ranges, k_page};
    std::vector<std::vector<int>> groups;
};

TEST_F(Pages, TheLedgersPagesJoinIntoTheWholeView) {
    std::vector<std::pair<std::int64_t, std::vector<double>>> sums;
    std::int64_t from = 0;
    std::size_t pages = 0;
    for (;; ++pages) {
        const auto v = ledger.view("victim", from, k_end, k_end, 1, groups);
        ASSERT_TRUE(v);
        if (pages == 0) {
            EXPECT_EQ(v->other_jobs, static_cast<std::size_t>(k_jobs)) << "the whole span's";
            EXPECT_EQ(v->most_at_once, 1U);
        }
        EXPECT_LE(v->sums.size() * (groups.size() + 1), k_page);
        ASSERT_FALSE(v->sums.empty());
        EXPECT_EQ(v->sums.front().first, from);
        sums.insert(sums.end(), v->sums.begin(), v->sums.end());
        if (!v->more_from_ns) {
            break;
        }
        EXPECT_GT(*v->more_from_ns, sums.back().first);
        from = *v->more_from_ns;
    }
    EXPECT_EQ(pages + 1, (2 * k_jobs + k_per_page) / k_per_page);
    ASSERT_EQ(sums.size(), 2U * k_jobs + 1);
    for (std::size_t i = 0; i < sums.size(); ++i) {
        for (const int c : {0, 1, 14, 15}) {
            EXPECT_EQ(sums[i].second[static_cast<std::size_t>(c)], expected(i, c)) << i << " " << c;
        }
    }
}

// A full page at the daemon's own size, its numbers as long as they come (a time near 2^61,
// sums like 1/3 over one CPU, or over many groups), fits what a connection may hold unsent
// with room for a stream's messages: else the daemon would drop the connection and its
// sessions rather than answer.
TEST(PagesSize, AFullPageFitsWhatAConnectionHoldsUnsent) {
    for (const std::size_t groups :
         {std::size_t{1}, std::size_t{2}, std::size_t{64}, std::size_t{65'536}}) {
        LedgerView v;
        v.grouped = true;
        for (std::size_t g = 0; g < groups; ++g) {
            v.groups.push_back({static_cast<int>(g)});
        }
        const auto segments = std::max<std::size_t>(1, Ledger::k_grouped_page / (groups + 1));
        for (std::size_t i = 0; i < segments; ++i) {
            v.sums.emplace_back(
                (std::int64_t{1} << 61) - 1'000'000'007 + static_cast<std::int64_t>(i),
                std::vector<double>(groups, 1.0 / 3 + 1e-17 * static_cast<double>(i)));
        }
        v.more_from_ns = std::int64_t{1} << 61;
        const auto bytes = ops::ledger_view_json(v).dump().size();
        EXPECT_LT(bytes, Connection::k_max_pending_out - Connection::k_out_high) << groups;
    }
}

TEST_F(Pages, JouleprofAsksForEachPageAndJoinsThem) {
    std::atomic<int> calls{0};
    std::atomic<bool> break_join{false};
    ScriptedServer s{[&](const json& r) {
        if (r["op"] == "hello") {
            return hello_reply(r);
        }
        ++calls;
        const auto v =
            ledger.view("victim", r["from_ns"].get<std::int64_t>(), r["to_ns"].get<std::int64_t>(),
                        k_end, 1, r["groups"].get<std::vector<std::vector<int>>>());
        auto out = ops::ledger_view_json(*v);
        if (break_join && r["from_ns"] != 0) { // a page that does not begin where asked
            out["segments"][0][0] = out["segments"][0][0].get<std::int64_t>() - 1;
        }
        out["id"] = r["id"];
        out["ok"] = true;
        return out.dump();
    }};
    auto c = Client::connect(s.path(), k_timeout);
    ASSERT_TRUE(c) << c.error().message;
    const auto offset = (*c)->hello().clock_offset_ns;
    const auto r =
        sensors::jouleprofd::query_ledger(**c, "victim", -offset, k_end - offset, groups);
    ASSERT_TRUE(r) << r.error();
    EXPECT_TRUE(r->grouped);
    EXPECT_EQ(calls.load(), (2 * k_jobs + k_per_page) / k_per_page);
    ASSERT_EQ(r->segments.size(), 2U * k_jobs + 1);
    EXPECT_EQ(r->other_jobs, static_cast<std::size_t>(k_jobs)) << "the first page's: the span's";
    for (std::size_t i = 0; i < r->segments.size(); ++i) {
        EXPECT_EQ(r->segments[i].t_ns + offset,
                  i == 0 ? 0 : 10 * static_cast<std::int64_t>((i + 1) / 2) + (i % 2 == 1 ? 0 : 5));
        for (const int cpu : {0, 1}) {
            EXPECT_EQ(r->segments[i].sums[static_cast<std::size_t>(cpu)], expected(i, cpu)) << i;
        }
    }
    break_join = true;
    const auto bad =
        sensors::jouleprofd::query_ledger(**c, "victim", -offset, k_end - offset, groups);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error(), "pages of the view that do not join");
}

} // namespace
} // namespace jp::daemon
