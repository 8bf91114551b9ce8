// SPDX-License-Identifier: BSD-3-Clause
// jouleprofd's ledger of who held which CPUs (daemon/ledger.hpp) and its reply as the
// client reads it (daemon_client/ledger_reply.hpp): segments where holders change, other
// jobs counted, a floored caller's times no finer than its floor, sessions forgotten only
// once nobody can ask about them; a reply read strictly.
#include "daemon/ledger.hpp"
#include "daemon_client/ledger_reply.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sched.h>
#include <unistd.h>

namespace jp::daemon {
namespace {

using Segments = std::vector<std::pair<std::int64_t, std::vector<std::pair<int, int>>>>;

TEST(Ledger, EachOfTheSessionsCpusCountsWhoHeldItAsThatChanged) {
    Ledger l;
    l.open("a", "a", 1000, {1, 0}, 0);
    l.open("b", "b", 1000, {1, 2}, 10);
    l.open("c", "c", 1000, {5}, 12); // none of a's CPUs: another job all the same
    l.close("b", 20);
    const auto v = l.view("a", 0, 30, 30, 1);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->cpus, (std::vector<int>{0, 1}));
    EXPECT_EQ(v->segments, (Segments{{0, {{1, 2}}}, {10, {{1, 1}, {2, 1}}}, {20, {{1, 2}}}}));
    EXPECT_EQ(v->other_jobs, 2U);
    EXPECT_EQ(v->most_at_once, 2U);
    EXPECT_EQ(v->complete_from_ns, 0);
    // A span inside: b already there at its start.
    const auto inner = l.view("a", 15, 18, 30, 1);
    ASSERT_TRUE(inner);
    EXPECT_EQ(inner->segments, (Segments{{15, {{1, 1}, {2, 1}}}}));
    // Clamped to the session's life: nothing before it opened, nothing after now.
    const auto wide = l.view("c", -100, 1000, 30, 1);
    ASSERT_TRUE(wide);
    EXPECT_EQ(wide->segments.front().first, 12);
    EXPECT_EQ(wide->other_jobs, 2U); // a, and b until 20
    EXPECT_FALSE(l.view("nobody", 0, 1, 30, 1));
    EXPECT_FALSE(l.view("b", 0, 30, 30, 1)) << "a closed session asks nothing";
}

TEST(Ledger, AFlooredCallerSeesOthersComeAndGoNoFinerThanItsFloor) {
    Ledger l;
    l.open("a", "a", 1000, {0}, 0);
    l.open("b", "b", 1000, {0}, 1'234);
    l.close("b", 5'678);
    const auto v = l.view("a", 0, 100'000, 100'000, 1'000);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->segments, (Segments{{0, {{1, 1}}}, {2'000, {{2, 1}}}, {6'000, {{1, 1}}}}));
    // The grid is the daemon's clock, not the span the caller picks: moving the span's start
    // or end by a nanosecond at a time shows no more than the floor (a review's attack).
    for (const std::int64_t from : {1'233, 1'234, 1'235, 1'999}) {
        const auto u = l.view("a", from, 100'000, 100'000, 1'000);
        ASSERT_TRUE(u);
        EXPECT_EQ(u->segments.at(1).first, 2'000) << from;
    }
    for (const std::int64_t to : {1'235, 1'500, 2'000}) {
        EXPECT_EQ(l.view("a", 0, to, 100'000, 1'000)->other_jobs, 0U) << to;
    }
    EXPECT_EQ(l.view("a", 0, 2'001, 100'000, 1'000)->other_jobs, 1U);
    for (const std::int64_t from : {5'679, 5'999}) { // closed at 5,678: seen until 6,000
        EXPECT_EQ(l.view("a", from, 100'000, 100'000, 1'000)->other_jobs, 1U) << from;
    }
    EXPECT_EQ(l.view("a", 6'000, 100'000, 100'000, 1'000)->other_jobs, 0U);
    // A job shorter than the floor that rounds to nothing changes no segment and is not
    // counted as there at once with anyone, but counts.
    l.open("c", "c", 1000, {0}, 10'100);
    l.close("c", 10'200);
    const auto w = l.view("a", 7'000, 100'000, 100'000, 1'000);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->segments, (Segments{{7'000, {{1, 1}}}}));
    EXPECT_EQ(w->most_at_once, 0U);
    EXPECT_EQ(w->other_jobs, 1U);
}

// One client process is one job, however many sessions it opens (a review's attack: one
// process opened 64 sessions and each neighbour's idle power was split 1/65).
TEST(Ledger, AProcessWithManySessionsIsOneJob) {
    Ledger l;
    l.open("a", "pid-a", 1000, {0}, 0);
    for (int i = 0; i < 64; ++i) {
        l.open("x" + std::to_string(i), "pid-x", 1000, {0}, 10 + i);
    }
    auto v = l.view("a", 0, 100, 100, 1);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->other_jobs, 1U);
    EXPECT_EQ(v->segments.back().second, (std::vector<std::pair<int, int>>{{2, 1}}));
    for (int i = 0; i < 63; ++i) {
        l.close("x" + std::to_string(i), 200);
    }
    EXPECT_EQ(l.closed_count(), 0U) << "the process still holds a session: its job goes on";
    l.close("x63", 300);
    v = l.view("a", 0, 400, 400, 1);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->segments, (Segments{{0, {{1, 1}}}, {10, {{2, 1}}}, {300, {{1, 1}}}}));
    // Its own other sessions are not other jobs.
    l.open("a2", "pid-a", 1000, {0}, 500);
    EXPECT_EQ(l.view("a2", 500, 600, 600, 1)->other_jobs, 0U);
}

// A floored caller's view: most_at_once from rounded times, endings first at a grid point
// (a review saw 1,664 at once where ~33 were).
TEST(Ledger, JobsThatOnlyMeetAtAGridPointAreNotAtOnce) {
    Ledger l;
    l.open("a", "a", 1000, {0}, 0);
    for (int i = 0; i < 10; ++i) { // one after another, each 1.5 quanta long
        const auto id = "s" + std::to_string(i);
        l.open(id, id, 1000, {0}, 1'000 + 1'500 * i);
        l.close(id, 2'400 + 1'500 * i);
    }
    const auto v = l.view("a", 0, 100'000, 100'000, 1'000);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->other_jobs, 10U);
    EXPECT_LE(v->most_at_once, 2U);
}

TEST(Ledger, ClosedSessionsAreKeptOnlyWhileAnOpenOneMayAsk) {
    Ledger l;
    l.open("old", "old", 1000, {0}, 0);
    l.close("old", 5);
    EXPECT_EQ(l.closed_count(), 0U) << "nobody open: nobody can ask";
    l.open("a", "a", 1000, {0}, 10);
    l.open("b", "b", 1000, {0}, 20);
    l.close("b", 30);
    EXPECT_EQ(l.closed_count(), 1U);
    l.close("a", 40);
    EXPECT_EQ(l.closed_count(), 0U);
}

// One user's jobs, one after another on `cpus`, each 1 ns long, from t on (10 ns apart).
void churn(Ledger& l, unsigned uid, std::size_t n, std::vector<int> cpus, std::int64_t t) {
    static int next = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const auto id = "churn" + std::to_string(next++);
        l.open(id, id, uid, cpus, t + static_cast<std::int64_t>(10 * i));
        l.close(id, t + static_cast<std::int64_t>(10 * i + 1));
    }
}

// A hostile user's churn: at most the bound kept, the churner's own forgotten first, and the
// view says from when it is whole.
TEST(Ledger, OneUsersChurnForgetsOnlyItsOwnEndedJobs) {
    constexpr unsigned k_victim = 1000;
    constexpr unsigned k_churner = 1001;
    Ledger l{100};
    l.open("long", "long", k_victim, {1}, 0);
    churn(l, k_victim, 5, {1}, 1); // the victim's own short jobs beside it, kept throughout
    churn(l, k_churner, 105, {1}, 1'000);
    EXPECT_EQ(l.closed_count(), 100U);
    EXPECT_EQ(l.closed_count(k_victim), 5U) << "another user's ended jobs are all kept";
    EXPECT_EQ(l.closed_count(k_churner), 95U);
    const auto v = l.view("long", 0, 1'000'000, 1'000'000, 1);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->complete_from_ns, 1'000 + 10 * 9 + 1) << "the churner's 10 forgotten by then";
    EXPECT_EQ(v->counts_complete_from_ns, v->complete_from_ns);
    EXPECT_EQ(v->other_jobs, 100U) << "the jobs kept";
}

// The user holding the most loses its oldest, whoever closed: a churner cannot push another
// user below its own count, and on a tie the one closing loses.
TEST(Ledger, TheUserHoldingTheMostForgetsFirstAndTheCloserOnATie) {
    Ledger l{100};
    l.open("long", "long", 0, {0}, 0);
    churn(l, 1000, 80, {0}, 1);     // a busy user: 80 ended jobs
    churn(l, 1001, 30, {0}, 1'000); // a churner reaches the bound at 20, then 30
    EXPECT_EQ(l.closed_count(1000), 70U) << "the busy user held the most: its oldest went";
    EXPECT_EQ(l.closed_count(1001), 30U);
    churn(l, 1001, 50, {0}, 2'000);
    EXPECT_EQ(l.closed_count(1000), 50U) << "never below the churner's count";
    EXPECT_EQ(l.closed_count(1001), 50U);

    Ledger tie{100};
    tie.open("long", "long", 0, {0}, 0);
    churn(tie, 1001, 50, {0}, 1);
    churn(tie, 1000, 49, {0}, 1'000);
    churn(tie, 1002, 1, {0}, 2'000); // at the bound
    churn(tie, 1000, 1, {0}, 3'000); // 50 each: the one closing loses, not the higher uid
    EXPECT_EQ(tie.closed_count(1000), 49U);
    EXPECT_EQ(tie.closed_count(1001), 50U);
    EXPECT_EQ(tie.closed_count(1002), 1U);
}

// A view is incomplete only on the CPUs a forgotten job held, and its counts of other jobs
// say from when they are whole apart from that.
TEST(Ledger, ForgottenJobsOnOtherCpusLeaveAViewsCpusWhole) {
    Ledger l{100};
    l.open("zero", "zero", 1000, {0}, 0);
    l.open("one", "one", 1000, {1}, 0);
    churn(l, 1001, 103, {1}, 1);
    const auto zero = l.view("zero", 0, 1'000'000, 1'000'000, 1);
    const auto one = l.view("one", 0, 1'000'000, 1'000'000, 1);
    ASSERT_TRUE(zero && one);
    EXPECT_EQ(zero->complete_from_ns, 0) << "nothing forgotten held CPU 0";
    EXPECT_EQ(zero->counts_complete_from_ns, 10 * 2 + 2) << "but 3 jobs on the node were";
    EXPECT_EQ(zero->other_jobs, 101U) << "the kept: 100 ended, 1 open";
    EXPECT_EQ(one->complete_from_ns, 10 * 2 + 2) << "3 forgotten held CPU 1";
    // A view that begins after the last forgotten job ended is whole.
    const auto later = l.view("zero", 500, 1'000'000, 1'000'000, 1);
    ASSERT_TRUE(later);
    EXPECT_EQ(later->complete_from_ns, 500);
    EXPECT_EQ(later->counts_complete_from_ns, 500);
}

// When another user's close pushes the ledger over its bound is not seen finer than the
// floor: a floored view shows the job forgotten then only once the next grid point passed.
TEST(Ledger, AForgettingIsShownToAFlooredViewOnlyFromTheNextGridPoint) {
    constexpr std::int64_t k_s = 1'000'000'000;
    Ledger l{3};
    l.set_grid(k_s, 0);
    l.open("probe", "probe", 1001, {0}, 0);
    churn(l, 1001, 3, {0}, 10); // the churner at the bound, its jobs ended at 11, 21, 31
    l.open("v", "v", 1000, {1}, 5 * k_s);
    l.close("v", 5 * k_s + 300'000'000); // over the bound: the churner's oldest forgotten
    const auto soon = l.view("probe", 0, 10 * k_s, 5 * k_s + 400'000'000, k_s);
    ASSERT_TRUE(soon);
    EXPECT_EQ(soon->counts_complete_from_ns, 0) << "not before the grid point";
    EXPECT_EQ(soon->complete_from_ns, 0);
    EXPECT_EQ(soon->other_jobs, 4U) << "the forgotten one still shown";
    const auto later = l.view("probe", 0, 10 * k_s, 6 * k_s, k_s);
    ASSERT_TRUE(later);
    EXPECT_EQ(later->counts_complete_from_ns, k_s) << "its end (11 ns) on the grid";
    EXPECT_EQ(later->complete_from_ns, k_s) << "it held the probe's CPU";
    EXPECT_EQ(later->other_jobs, 3U);
    const auto root = l.view("probe", 0, 10 * k_s, 5 * k_s + 400'000'000, 1);
    ASSERT_TRUE(root);
    EXPECT_EQ(root->counts_complete_from_ns, 11) << "a full-resolution view: at once";
    // A later close settles it (and, 2 each, forgets the closing user's oldest: v's).
    l.open("w", "w", 1000, {1}, 7 * k_s);
    l.close("w", 7 * k_s);
    EXPECT_EQ(l.closed_count(), 3U);
    const auto settled = l.view("probe", 0, 10 * k_s, 8 * k_s, 1);
    ASSERT_TRUE(settled);
    EXPECT_EQ(settled->counts_complete_from_ns, 5 * k_s + 300'000'000);
    EXPECT_EQ(settled->complete_from_ns, 11) << "v held another CPU; the churner's did";
    // A flood of forgettings within one grid cell stays bounded: beyond 4,096 the oldest
    // are settled early (the flooder's own, here).
    churn(l, 1001, 5'000, {0}, 9 * k_s);
    const auto flooded = l.view("probe", 0, 20 * k_s, 9 * k_s + 100'000, k_s);
    ASSERT_TRUE(flooded);
    EXPECT_LE(flooded->other_jobs, 3U + 4'096U + 2U) << "kept, recent and v, w";
    EXPECT_GT(flooded->counts_complete_from_ns, 8 * k_s) << "those settled early are forgotten";
}

// A floor raised by a reload never shows a forgetting already shown on the old grid as kept
// again (a job that seemed to come back would say when the grid changed, and little else).
TEST(Ledger, ARaisedFloorKeepsWhatWasShownForgotten) {
    constexpr std::int64_t k_s = 1'000'000'000;
    Ledger l{3};
    l.set_grid(k_s, 0);
    l.open("probe", "probe", 1001, {0}, 0);
    churn(l, 1001, 3, {0}, 10);
    l.open("v", "v", 1000, {1}, 5 * k_s);
    l.close("v", 5 * k_s + 300'000'000); // the churner's oldest forgotten at 5.3 s
    const auto shown = l.view("probe", 0, 10 * k_s, 6 * k_s, k_s);
    ASSERT_TRUE(shown);
    EXPECT_EQ(shown->other_jobs, 3U) << "forgotten, shown from 6 s";
    l.set_grid(10 * k_s, 6 * k_s + 500'000'000); // the floor reloaded as 10 s
    const auto after = l.view("probe", 0, 10 * k_s, 7 * k_s, 10 * k_s);
    ASSERT_TRUE(after);
    EXPECT_EQ(after->counts_complete_from_ns, 10 * k_s)
        << "still forgotten (its end on the new grid), not kept again until 10 s";
}

// The bound on CPU ranges is kept the same way: the user holding the most ranges forgets.
TEST(Ledger, ScatteredCpusAreForgottenFromWhoeverHoldsTheMostRanges) {
    Ledger l{1000, 200};
    l.open("long", "long", 1000, {0}, 0);
    l.open("mine", "mine", 1000, {0, 2}, 1);
    l.close("mine", 2);
    std::vector<int> every_other; // 64 ranges a job
    for (int c = 1; c < 128; c += 2) {
        every_other.push_back(c);
    }
    churn(l, 1001, 5, every_other, 10);
    EXPECT_EQ(l.closed_count(1000), 1U);
    EXPECT_EQ(l.closed_count(1001), 3U) << "200 ranges at most: 3 jobs of 64 and mine of 2";
    const auto v = l.view("long", 0, 1'000'000, 1'000'000, 1);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->complete_from_ns, 0) << "the forgotten held only odd CPUs";
    EXPECT_EQ(v->counts_complete_from_ns, 10 + 10 + 1);
}

TEST(Ledger, TheCpusAreTheKernelsWordForThePid) {
    cpu_set_t set;
    CPU_ZERO(&set);
    ASSERT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
    const auto mine = affinity_of(::getpid());
    ASSERT_EQ(mine.size(), static_cast<std::size_t>(CPU_COUNT(&set)));
    for (const int cpu : mine) {
        EXPECT_TRUE(CPU_ISSET(static_cast<std::size_t>(cpu), &set)) << cpu;
    }
    EXPECT_TRUE(affinity_of(0).empty()) << "pid 0: a peer in another PID namespace";
    EXPECT_TRUE(affinity_of(-1).empty());
}

TEST(LedgerReply, ReadStrictlyAndShiftedToOurClock) {
    const auto good = nlohmann::json::parse(
        R"({"cpus":[0,3],"segments":[[100,[[1,2]]],[150,[[2,1],[1,1]]]],"other_jobs":1,)"
        R"("most_at_once":1,"complete_from_ns":100})");
    const auto r = parse_ledger(good, 40);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->segments.at(1).t_ns, 110);
    EXPECT_EQ(r->complete_from_ns, 60);
    EXPECT_EQ(r->counts_complete_from_ns, 60) << "an older daemon's one time serves both";
    EXPECT_EQ(r->held(1), (std::vector<int>{2, 1}));
    const auto again = parse_ledger(ledger_json(*r), 0);
    ASSERT_TRUE(again) << ledger_json(*r).dump();
    EXPECT_EQ(again->held(1), r->held(1)) << "written as read";
    auto both = good;
    both["counts_complete_from_ns"] = 130;
    const auto b = parse_ledger(both, 40);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->complete_from_ns, 60);
    EXPECT_EQ(b->counts_complete_from_ns, 90);
    both["counts_complete_from_ns"] = "soon";
    EXPECT_FALSE(parse_ledger(both, 0));
    for (
        const char* bad : {
            R"([])",
            R"({"cpus":[0],"segments":[[1,[[1,1]]]],"other_jobs":-1,"most_at_once":0,"complete_from_ns":0})",
            R"({"cpus":[0],"segments":[[1,[[1,1]]]],"other_jobs":0,"most_at_once":1,"complete_from_ns":0})",
            R"({"cpus":[70000],"segments":[[1,[[1,1]]]],"other_jobs":0,"most_at_once":0,"complete_from_ns":0})",
            R"({"cpus":[0],"segments":[[1e30,[[1,1]]]],"other_jobs":0,"most_at_once":0,"complete_from_ns":0})",
            R"({"cpus":[0],"segments":[[1,[[0,1]]]],"other_jobs":0,"most_at_once":0,"complete_from_ns":0})",
            R"({"cpus":[0],"segments":[[1,[[1,2]]]],"other_jobs":0,"most_at_once":0,"complete_from_ns":0})",
            R"({"cpus":[0],"segments":[[1,[[1,1]]]],"other_jobs":0,"most_at_once":0})",
            R"({"cpus":[0],"segments":[[1,[1,1]]],"other_jobs":0,"most_at_once":0,"complete_from_ns":0})",
        }) {
        EXPECT_FALSE(parse_ledger(nlohmann::json::parse(bad), 0)) << bad;
    }
    EXPECT_FALSE(parse_ledger(good, std::int64_t{1} << 62)) << "an offset out of range";
}

} // namespace
} // namespace jp::daemon
