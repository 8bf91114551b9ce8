// SPDX-License-Identifier: BSD-3-Clause
// The job's share where other jobs held some of its CPUs (jouleprofd's ledger in the run's
// facts, report/attribution_ledger.hpp): each CPU's idle power split evenly between the
// jobs that held it at the time, by hand on a 10 s trace; conservation still exact; a
// damaged ledger said in a note and nothing changed.
#include "daemon_client/ledger_reply.hpp"
#include "report/attribution_ledger.hpp"
#include "report/format.hpp"
#include "report/summary.hpp"
#include "report/units.hpp"
#include "trace_builder.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace jp::report {
namespace {

struct LedgerShare : ::testing::Test {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("jp-ledger-" + std::to_string(::getpid()) + ".jptrace");
    void SetUp() override { std::filesystem::remove(path); }
    void TearDown() override { std::filesystem::remove(path); }

    // Two packages of one CPU each, both given to the job (no cpuset: as on a GPU server);
    // 10 W idle each. Package 0 draws 30 W, busy all the time, half of it the job's; package
    // 1 draws 20 W, half busy, none of it the job's.
    static std::optional<RunSummary>
    summary_with(const std::filesystem::path& path,
                 const std::string& ledger,
                 const std::string& key = "ledger",
                 std::vector<std::tuple<double, std::string, std::string>> markers = {}) {
        test::TraceBuilder b{
            path,
            {test::channel("cpu0.package", Domain::cpu_package, Quantity::energy),
             test::channel("cpu1.package", Domain::cpu_package, Quantity::energy)}};
        auto spec =
            test::make_run("job", 10, [](std::size_t ch, double) { return ch == 0 ? 30.0 : 20.0; });
        spec.markers = std::move(markers);
        const auto id = b.run(spec);
        std::vector<trace::UsageRecord> rows;
        for (int t = 0; t <= 10; ++t) {
            rows.push_back({t * test::k_s, 0, 0.5 * t, 1.0 * t});
            rows.push_back({t * test::k_s, 1, 0.0, 0.5 * t});
        }
        b.usage(id,
                fmt::format(R"({{"version":1,"job":"test","cpus":[0,1],"given_cpus":[0,1],)"
                            R"("package_of":{{"0":0,"1":1}},"memory_total":null,)"
                            R"("memory_given":null,"gpus_given":null,"gpu_source":"",)"
                            R"("idle_w":{{"cpu0.package":10,"cpu1.package":10}},"notes":[]{}}})",
                            ledger.empty() ? "" : ",\"" + key + "\":" + ledger),
                rows);
        auto reader = b.reader();
        auto s = summarize_run(reader, reader.runs().front());
        if (!s || !s->attribution) {
            ADD_FAILURE() << "no attribution";
            return std::nullopt;
        }
        // Conservation against the node's own figures, whatever the ledger said.
        for (const auto& item : s->parts) {
            EXPECT_NEAR(item.share->node_j(), item.energy_j, 1e-3) << item.name;
        }
        return std::move(*s);
    }
    static const JobShare& part(const Attribution& a, std::string_view name) {
        for (const auto& p : a.parts) {
            if (p.name == name) {
                return p.share;
            }
        }
        throw std::runtime_error("no part " + std::string{name});
    }
};

TEST_F(LedgerShare, ACpuAnotherJobHeldTooHasItsIdlePowerSplitBetweenThem) {
    // Alone for 5 s, then another job held CPU 0 (package 0) too until the end.
    const auto s =
        summary_with(path, R"({"cpus":[0,1],"segments":[[0,[[1,2]]],[5000000000,[[2,1],[1,1]]]],)"
                           R"("other_jobs":1,"most_at_once":1,"complete_from_ns":0})");
    ASSERT_TRUE(s);
    const auto& a = s->attribution;
    const auto& p0 = part(*a, "cpu0.package");
    EXPECT_NEAR(p0.job_idle_j, 75, 1e-6);     // 10 W x 5 s + 10 W x 5 s / 2
    EXPECT_NEAR(p0.unallocated_j, 25, 1e-6);  // the other job's half: not this one's
    EXPECT_NEAR(p0.job_dynamic_j, 100, 1e-6); // 20 W x 10 s of use, half of it the job's
    const auto& p1 = part(*a, "cpu1.package");
    EXPECT_NEAR(p1.job_idle_j, 100, 1e-6); // nobody else held CPU 1
    EXPECT_EQ(a->other_jobs, std::optional<std::size_t>{1});
    EXPECT_EQ(a->jobs_at_once, 1U);
    EXPECT_NE(a->method.find("CPUs other jobs held too, split evenly (jouleprofd's ledger)"),
              std::string::npos)
        << a->method;
    bool noted = false;
    for (const auto& n : a->notes) {
        noted = noted || n.starts_with("jouleprofd's ledger: 1 other job on the node");
    }
    EXPECT_TRUE(noted);
    EXPECT_FALSE(a->exclusive);
    const auto j = run_to_json(*s).at("attribution");
    EXPECT_EQ(j.at("other_jobs"), 1);
    EXPECT_EQ(j.at("other_jobs_at_once"), 1);
}

// The view jouleprofd gives when asked per package: each package's sum of 1 / holders over
// the job's CPUs there, the same split as the view per CPU above.
TEST_F(LedgerShare, AGroupedLedgerSplitsAsTheViewPerCpu) {
    const auto s =
        summary_with(path, R"({"groups":[[0],[1]],"segments":[[0,[1,1]],[5000000000,[0.5,1]]],)"
                           R"("other_jobs":1,"most_at_once":1,"complete_from_ns":0})");
    ASSERT_TRUE(s);
    const auto& a = s->attribution;
    const auto& p0 = part(*a, "cpu0.package");
    EXPECT_NEAR(p0.job_idle_j, 75, 1e-6);
    EXPECT_NEAR(p0.unallocated_j, 25, 1e-6);
    EXPECT_NEAR(part(*a, "cpu1.package").job_idle_j, 100, 1e-6);
    EXPECT_NE(a->method.find("split evenly (jouleprofd's ledger)"), std::string::npos);
    // Groups that are not the job's CPUs by package (a damaged trace): said, nothing changed.
    for (const char* bad : {R"({"groups":[[0,1]],"segments":[[0,[1.5]]],"other_jobs":1,)"
                            R"("most_at_once":1,"complete_from_ns":0})",
                            R"({"groups":[[0],[7]],"segments":[[0,[0.5,1]]],"other_jobs":1,)"
                            R"("most_at_once":1,"complete_from_ns":0})"}) {
        const auto p = path.string() + ".g";
        const auto d = summary_with(p, bad);
        std::filesystem::remove(p);
        ASSERT_TRUE(d) << bad;
        EXPECT_NEAR(part(*d->attribution, "cpu0.package").job_idle_j, 100, 1e-6) << bad;
        bool noted = false;
        for (const auto& n : d->attribution->notes) {
            noted = noted || n.starts_with("the trace's ledger of other jobs is damaged (its "
                                           "groups are not the job's CPUs by package)");
        }
        EXPECT_TRUE(noted) << bad;
    }
}

// A phase's row in the text table is the node's: on a shared node the job's share is beside
// it, as in JSON, CSV and HTML (a new user's trial: the text alone gave the node's).
TEST_F(LedgerShare, ThePhasesTextRowGivesTheJobsShareBesideTheNodes) {
    const auto s =
        summary_with(path,
                     R"({"groups":[[0],[1]],"segments":[[0,[1,1]],[5000000000,[0.5,1]]],)"
                     R"("other_jobs":1,"most_at_once":1,"complete_from_ns":0})",
                     "ledger", {{6, "begin", "late"}, {8, "end", "late"}});
    ASSERT_TRUE(s);
    ASSERT_EQ(s->phase_totals.size(), 1U);
    const auto& late = s->phase_totals.front();
    ASSERT_TRUE(late.node.share);
    // 2 s: package 0's idle half the job's (10 J of 20), its 40 J of use half; package 1's
    // idle all of it (20 J), none of its use.
    EXPECT_NEAR(late.node.share->job_j(), 10 + 20 + 20, 1e-6);
    const auto text = format_text({aggregate_runs("job", {*s})});
    const auto row = text.substr(text.find("phase late"));
    const auto line = row.substr(0, row.find('\n'));
    const auto& b = late.node.share->job_bound;
    ASSERT_TRUE(b);
    EXPECT_NE(line.find(fmt::format("; job's share 50.00 J ({}–{})", energy_text(b->low),
                                    energy_text(b->high))),
              std::string::npos)
        << line;
}

TEST_F(LedgerShare, NoOtherJobChangesNothingButIsCounted) {
    const auto s = summary_with(
        path, R"({"cpus":[0,1],"segments":[[0,[[1,2]]]],"other_jobs":0,"most_at_once":0,)"
              R"("complete_from_ns":0})");
    ASSERT_TRUE(s);
    const auto& a = s->attribution;
    EXPECT_NEAR(part(*a, "cpu0.package").job_idle_j, 100, 1e-6);
    EXPECT_EQ(a->other_jobs, std::optional<std::size_t>{0});
    EXPECT_EQ(a->method.find("ledger"), std::string::npos) << a->method;
    const auto none = summary_with(path.string() + ".2", "");
    ASSERT_TRUE(none);
    EXPECT_FALSE(none->attribution->other_jobs) << "no daemon: nothing known of other jobs";
    EXPECT_TRUE(run_to_json(*none).at("attribution").at("other_jobs").is_null());
    std::filesystem::remove(path.string() + ".2");
}

// What the daemon could not say, and what it had forgotten, is said (a review: a churn of
// jobs or a refused view changed the split silently).
TEST_F(LedgerShare, AViewTheDaemonRefusedOrOneThatForgotJobsIsSaid) {
    const auto refused = summary_with(path, R"("rate limited")", "ledger_error");
    ASSERT_TRUE(refused);
    bool said = false;
    for (const auto& n : refused->attribution->notes) {
        said = said || n == "jouleprofd could not say which of the job's CPUs other jobs held "
                            "(rate limited): they are taken as the job's own";
    }
    EXPECT_TRUE(said);
    EXPECT_NEAR(part(*refused->attribution, "cpu0.package").job_idle_j, 100, 1e-6);
    const auto p = path.string() + ".f";
    const auto forgot =
        summary_with(p, R"({"cpus":[0,1],"segments":[[0,[[1,2]]],[5000000000,[[2,1],[1,1]]]],)"
                        R"("other_jobs":1,"most_at_once":1,"complete_from_ns":3000000000})");
    std::filesystem::remove(p);
    ASSERT_TRUE(forgot);
    // Its counts of other jobs are those it kept: at least (an older daemon's one time), and
    // the CPUs it forgot up to the same time are said in the same note.
    said = false;
    for (const auto& n : forgot->attribution->notes) {
        said = said || n.starts_with("jouleprofd's ledger: at least 1 other job on the node "
                                     "during the run (at least 1 at once): it had forgotten "
                                     "jobs that ended before 3.0 s into the run (too many came "
                                     "and went; until then, CPUs other jobs held may be counted "
                                     "as this job's alone);");
    }
    EXPECT_TRUE(said) << fmt::format("{}", fmt::join(forgot->attribution->notes, " | "));
}

// A job the daemon forgot ended during the run: one other job at least, whatever it kept.
TEST(LedgerNote, AJobForgottenDuringTheRunCountsAsOneAtLeast) {
    daemon::LedgerReply r;
    r.counts_complete_from_ns = 3'000'000'000;
    auto notes = ledger_notes(r, 0);
    ASSERT_EQ(notes.size(), 1U);
    EXPECT_TRUE(notes[0].starts_with("jouleprofd's ledger: at least 1 other job on the node "
                                     "during the run (at least 1 at once): it had forgotten "
                                     "jobs that ended before 3.0 s"))
        << notes[0];
    r.counts_complete_from_ns = 0;
    EXPECT_TRUE(ledger_notes(r, 0).empty()) << "nothing forgotten, no other job: no note";
}

// Forgotten on the job's CPUs and in the counts up to the same time: said once; up to
// different times: each said.
TEST(LedgerNote, ForgettingUpToOneTimeIsSaidOnce) {
    daemon::LedgerReply r;
    r.other_jobs = 2;
    r.most_at_once = 1;
    r.complete_from_ns = 3'000'000'000;
    r.counts_complete_from_ns = 3'000'000'000;
    auto notes = ledger_notes(r, 0);
    ASSERT_EQ(notes.size(), 1U);
    EXPECT_NE(notes[0].find("at least 2 other jobs"), std::string::npos) << notes[0];
    EXPECT_NE(notes[0].find("ended before 3.0 s into the run (too many came and went; until "
                            "then, CPUs other jobs held may be counted as this job's alone)"),
              std::string::npos)
        << notes[0];
    r.counts_complete_from_ns = 3'020'000'000; // another job's end, as printed the same
    EXPECT_EQ(ledger_notes(r, 0).size(), 1U);
    r.counts_complete_from_ns = 4'000'000'000;
    notes = ledger_notes(r, 0);
    ASSERT_EQ(notes.size(), 2U);
    EXPECT_NE(notes[0].find("ended before 4.0 s into the run;"), std::string::npos) << notes[0];
    EXPECT_TRUE(notes[1].starts_with("jouleprofd's ledger had forgotten jobs that ended before "
                                     "3.0 s into the run (too many came and went): until then,"))
        << notes[1];
}

TEST_F(LedgerShare, ADamagedLedgerIsSaidAndChangesNothing) {
    int i = 0;
    for (const char* bad : {
             R"({"cpus":[0,1],"segments":[[5,[[1,2]]],[5,[[2,2]]]],"other_jobs":1,)"
             R"("most_at_once":1,"complete_from_ns":0})", // times not ascending
             R"({"cpus":[0,1],"segments":[[0,[[1,1]]]],"other_jobs":0,"most_at_once":0,)"
             R"("complete_from_ns":0})", // runs short of the CPUs
             R"({"cpus":[0,1],"segments":[[0,[[9,2]]]],"other_jobs":1,"most_at_once":1,)"
             R"("complete_from_ns":0})", // more holders than jobs
             R"({"cpus":[1,0],"segments":[[0,[[1,2]]]],"other_jobs":0,"most_at_once":0,)"
             R"("complete_from_ns":0})", // CPUs not ascending
             R"({"cpus":[0,1],"segments":[],"other_jobs":0,"most_at_once":0,)"
             R"("complete_from_ns":0})", // no segment
             R"("ledger")",
         }) {
        const auto p = path.string() + "." + std::to_string(++i);
        const auto s = summary_with(p, bad);
        std::filesystem::remove(p);
        ASSERT_TRUE(s) << bad;
        const auto& a = s->attribution;
        EXPECT_NEAR(part(*a, "cpu0.package").job_idle_j, 100, 1e-6) << bad;
        EXPECT_FALSE(a->other_jobs) << bad;
        bool noted = false;
        for (const auto& n : a->notes) {
            noted = noted || n.starts_with("the trace's ledger of other jobs is damaged");
        }
        EXPECT_TRUE(noted) << bad;
    }
}

} // namespace
} // namespace jp::report
