// SPDX-License-Identifier: BSD-3-Clause
// A GPU the job holds that other processes had too (report/gpu_presence.hpp): who had it
// over a stretch, what that makes of the job's use, the bound of not knowing who used a
// shared GPU, and the whole split from a trace, hand-computed.
#include "report/gpu_presence.hpp"
#include "report/share_bound.hpp"
#include "report/summary.hpp"
#include "trace/sqlite.hpp"
#include "trace_builder.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace jp::report {
namespace {

constexpr std::int64_t k_s = test::k_s;

// One interval's two cuts, each ±e.
std::vector<CutError> cut_errors(double e, bool grows) {
    std::vector<CutError> cuts(2);
    for (auto& c : cuts) {
        c.lo = -e;
        c.hi = e;
        c.grows = grows;
    }
    return cuts;
}

attrib::Interval gpu_interval() {
    return {300, 1, 100, 1, 1, true}; // 300 J in 1 s, 100 W idle, held, all the job's
}

TEST(GpuPresence, TheListingsAroundAStretchCountAndTheMostSeenOfEach) {
    const std::vector<trace::GpuUseRecord> rows{
        {0, 0, 1, 0, 0}, {2 * k_s, 0, 1, 2, 0}, {4 * k_s, 0, 1, 0, 1}, {0, 1, 0, 0, 0}};
    const GpuPresence p{rows};
    // [0.5, 1] s: the listing at 0 and the next one, at 2 s, whose two others may have come
    // at any time after 0.
    const auto a = p.over(0, k_s / 2, k_s);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->job, 1);
    EXPECT_EQ(a->other, 2);
    EXPECT_EQ(a->unknown, 0);
    const auto b = p.over(0, k_s, 3 * k_s); // the ones at 0, 2 s and 4 s
    ASSERT_TRUE(b);
    EXPECT_EQ(b->other, 2);
    EXPECT_EQ(b->unknown, 1);
    const auto c = p.over(0, 5 * k_s, 6 * k_s); // the last one holds on
    ASSERT_TRUE(c);
    EXPECT_EQ(c->other, 0);
    EXPECT_EQ(c->unknown, 1);
    const auto at = p.over(0, 2 * k_s, 2 * k_s); // a listing at the very time: that one
    ASSERT_TRUE(at);
    EXPECT_EQ(at->other, 2);
    EXPECT_EQ(at->unknown, 0);
    EXPECT_FALSE(p.over(2, 0, k_s));               // never listed
    const auto before = p.over(0, -k_s, -k_s / 2); // before the first: the first
    ASSERT_TRUE(before);
    EXPECT_EQ(before->job, 1);
    EXPECT_EQ(before->other, 0);
}

TEST(GpuPresence, WhoHadItDecidesTheJobsUse) {
    // Per GPU, listed at 0 and 10 s: (job, other, unknown).
    std::vector<trace::GpuUseRecord> rows;
    const auto both = [&](int gpu, trace::GpuUseRecord first, trace::GpuUseRecord next) {
        first.gpu = next.gpu = gpu;
        next.t_ns = 10 * k_s;
        rows.push_back(first);
        rows.push_back(next);
    };
    both(0, {0, 0, 0, 1, 0}, {0, 0, 0, 1, 0}); // others alone
    both(1, {0, 0, 2, 2, 0}, {0, 0, 2, 2, 0}); // two of the job's beside two others
    both(2, {0, 0, 0, 0, 3}, {0, 0, 0, 0, 3}); // only PIDs /proc does not show
    both(3, {0, 0, 1, 0, 0}, {0, 0, 1, 0, 0}); // the job's alone
    both(4, {0, 0, 0, 1, 0}, {0, 0, 1, 1, 0}); // the job's came some time before 10 s
    const GpuPresence p{rows};
    const auto use_of = [&](int gpu) {
        auto in = gpu_interval();
        p.apply(in, gpu, k_s, 2 * k_s);
        return std::pair{in.use, in.use_unknown};
    };
    EXPECT_EQ(use_of(0), (std::pair{0.0, false})); // the power above idle is theirs
    EXPECT_EQ(use_of(1), (std::pair{0.5, true}));  // a half, and nobody knows
    EXPECT_EQ(use_of(2), (std::pair{1.0, true}));  // the job's, and nobody knows
    EXPECT_EQ(use_of(3), (std::pair{1.0, false})); // as the allocation says
    EXPECT_EQ(use_of(4), (std::pair{0.5, true}));  // it may have run then already
    EXPECT_EQ(use_of(9), (std::pair{1.0, false})); // never listed: unchanged
    // After the last listing (or before the first) nobody can say the job stayed away.
    auto in = gpu_interval();
    p.apply(in, 0, 11 * k_s, 12 * k_s);
    EXPECT_EQ(in.use, 0);
    EXPECT_TRUE(in.use_unknown);
}

// 300 J in 1 s on a 100 W idle GPU, the job's use a half nobody can confirm: 100 J idle +
// 100 J, anywhere from 100 J (none of the 200 J above idle) to 300 J (all of it); with
// exact counter readings nothing else widens it.
TEST(GpuPresence, TheBoundOfNotKnowingSpansNoneToAll) {
    auto in = gpu_interval();
    in.use = 0.5;
    in.use_unknown = true;
    const std::vector<CutError> exact(2);
    const auto b = share_bound(std::span{&in, 1}, exact);
    EXPECT_NEAR(b.low, 100, 1e-9);
    EXPECT_NEAR(b.high, 300, 1e-9);
    EXPECT_NEAR(b.terms.shared, 200, 1e-9);
    EXPECT_EQ(b.dominant, "who used a shared GPU");
    // With the counter's own error of ±10 J at each end (280 to 320 J): none of the power
    // above idle leaves the idle 100 J whatever the energy, all of it reaches 320 J.
    const auto w = share_bound(std::span{&in, 1}, cut_errors(10, true));
    EXPECT_NEAR(w.low, 100, 1e-9);
    EXPECT_NEAR(w.high, 320, 1e-9);
    EXPECT_NEAR(w.terms.shared, 200, 1e-9); // beyond the ±10 J the use's 0.5 gives
    // A node less its parts can come out negative (-50 J at the lowest): the power above
    // idle is then negative, and not knowing the use adds its most negative on both sides.
    attrib::Interval neg{10, 1, 0, 1, 0.5, true, true};
    const auto n = share_bound(std::span{&neg, 1}, cut_errors(30, false));
    EXPECT_LE(n.low, -50); // all of -50 J
    EXPECT_GE(n.high, 70); // all of 70 J
}

// gpu0 draws 50 W (30 W idle) for 10 s, held by the job: for 4 s another process alone had
// it, then the job's beside it. The job: 300 J idle, and half of 20 W over the 6 s both had
// it (60 J); others: 20 W over 4 s and the other half (140 J). Bound: 300 to 420 J.
namespace {

// The trace of the tests below: the run and the GPU's listings of who had it.
std::int64_t write_shared_gpu_run(test::TraceBuilder& b) {
    const auto id = b.run(
        test::make_run("job", 10, [](std::size_t ch, double) { return ch == 0 ? 20.0 : 50.0; }));
    std::vector<trace::UsageRecord> use;
    std::vector<trace::GpuUseRecord> gpus;
    for (int t = 0; t <= 10; ++t) {
        use.push_back({t * k_s, 0, 0.5 * t, 1.0 * t});
        gpus.push_back({t * k_s, 0, t < 5 ? 0 : 1, 1, 0});
    }
    b.usage(id,
            R"({"version":1,"job":"test","cpus":[0],"given_cpus":[0],"package_of":{"0":0},)"
            R"("memory_total":null,"memory_given":null,"gpus_given":[0],"gpu_source":"",)"
            R"("idle_w":{"cpu0.package":10,"gpu0":30},"notes":[]})",
            use, gpus);
    return id;
}

std::vector<Channel> cpu_and_gpu() {
    return {test::channel("cpu0.package", Domain::cpu_package, Quantity::energy),
            test::channel("gpu0", Domain::gpu, Quantity::energy)};
}

} // namespace

TEST(GpuPresence, AJobsShareOfAGpuItSharedFromItsTrace) {
    const auto path =
        std::filesystem::temp_directory_path() / fmt::format("jp-gpu-share-{}.jptrace", ::getpid());
    std::filesystem::remove(path);
    {
        test::TraceBuilder b{path, cpu_and_gpu()};
        (void)write_shared_gpu_run(b);
        auto reader = b.reader();
        const auto s = summarize_run(reader, reader.runs().front());
        ASSERT_TRUE(s && s->attribution);
        const auto& a = *s->attribution;
        EXPECT_NE(a.method.find("a GPU the job holds, by who had it (NVML's process lists)"),
                  std::string::npos)
            << a.method;
        const auto& g = a.parts.at(1);
        ASSERT_EQ(g.name, "gpu0");
        EXPECT_NEAR(g.share.job_idle_j, 300, 1e-6);
        EXPECT_NEAR(g.share.job_dynamic_j, 60, 1e-6);
        EXPECT_NEAR(g.share.other_j, 140, 1e-6);
        EXPECT_NEAR(g.share.node_j(), 500, 1e-3);
        ASSERT_TRUE(g.share.job_bound);
        EXPECT_LE(g.share.job_bound->low, 300 + 1e-6);
        EXPECT_GE(g.share.job_bound->high, 420 - 1e-6);
        EXPECT_GT(g.share.job_bound->terms.shared, 0);
        bool said = false;
        for (const auto& n : a.notes) {
            said = said || n.starts_with("gpu0 was shared: 1 other process had it beside the "
                                         "job's 1 process (the most at once");
        }
        EXPECT_TRUE(said) << fmt::format("{}", fmt::join(a.notes, " | "));
    }
    std::filesystem::remove(path);
}

} // namespace

// A listings table of another shape than the reader's query (no such column) is the file's:
// said as damaged, and the CPU's split stays. Not an error that loses the whole report.
TEST(GpuPresence, AListingsTableOfAnotherShapeIsSaidDamagedNotAnError) {
    const auto path =
        std::filesystem::temp_directory_path() / fmt::format("jp-gpu-shape-{}.jptrace", ::getpid());
    std::filesystem::remove(path);
    {
        test::TraceBuilder b{path, cpu_and_gpu()};
        const auto id = write_shared_gpu_run(b);
        {
            auto db = trace::Database::open(path, trace::Database::Mode::create);
            ASSERT_TRUE(db) << db.error().message();
            ASSERT_TRUE(db->exec("ALTER TABLE gpu_use RENAME COLUMN other TO elsewhere"));
            const auto wrong = db->prepare("SELECT other FROM gpu_use");
            ASSERT_FALSE(wrong);
            EXPECT_EQ(wrong.error().kind, ErrorKind::parse) << wrong.error().message();
        }
        auto reader = b.reader();
        const auto u = reader.usage(id);
        ASSERT_TRUE(u) << u.error().message();
        ASSERT_TRUE(u->has_value());
        EXPECT_TRUE((*u)->gpus_damaged);
        EXPECT_FALSE((*u)->damaged);
        EXPECT_TRUE((*u)->gpus.empty());
        EXPECT_FALSE((*u)->records.empty()); // the CPU's use is read
    }
    std::filesystem::remove(path);
}

} // namespace jp::report
