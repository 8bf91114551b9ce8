// SPDX-License-Identifier: BSD-3-Clause
// The sensors' bound on a job's share (report/share_bound.hpp): from each counter's own
// limits at the attribution's cuts, and from a power field's bound over each interval.
#include "attribution_fixture.hpp"
#include "report/format.hpp"
#include "report/summary.hpp"

#include <filesystem>
#include <gtest/gtest.h>

namespace jp::report {
namespace {

using test::channel;
using test_attribution::Attribution_;

// The counters are read every second with no stated update period or limit: each may
// lag by a second at the most power (twice the highest seen), so at every cut it lies
// between its reading and 60 J (cpu0), 100 J (gpu0) above it.
TEST_F(Attribution_, TheJobsShareCarriesTheSensorsBound) {
    test::TraceBuilder b{path, channels()};
    auto spec = test::make_run("job", 10, watts);
    spec.markers = {{2, "begin", "step"}, {4, "end", "step"}};
    const auto id = b.run(spec);
    b.usage(id, facts(k_idle), use(10));
    auto reader = b.reader();
    const auto s = summarize_run(reader, reader.runs().front());
    ASSERT_TRUE(s && s->attribution);
    const auto& a = *s->attribution;
    // cpu0: the job's half of the use is steady, so only the run's edges count (±0.5 × 60 J),
    // and in each second the energy could be 0 (a counter never runs back): the job's
    // share is then 0, 5 J below the line the slope of 0.5 draws (10 × 5 J, below only:
    // above idle power the line is the share itself).
    const auto& p0 = part(a, "cpu0.package").share;
    ASSERT_TRUE(p0.job_bound);
    EXPECT_NEAR(p0.job_bound->low, 200 - 30 - 50, 0.01);
    EXPECT_NEAR(p0.job_bound->high, 200 + 30, 0.01);
    const auto& g0 = part(a, "gpu0").share; // the job's own GPU: all of its error
    ASSERT_TRUE(g0.job_bound);
    EXPECT_NEAR(g0.job_bound->low, 400, 0.01);
    EXPECT_NEAR(g0.job_bound->high, 600, 0.01);
    EXPECT_NEAR(part(a, "gpu1").share.job_bound->half_width(), 0, 1e-9); // another's GPU
    ASSERT_TRUE(a.node.job_bound);
    EXPECT_NEAR(a.node.job_bound->low, 520, 0.01);
    EXPECT_NEAR(a.node.job_bound->high, 830, 0.01);
    EXPECT_EQ(a.node.job_bound->dominant, "edge staleness");
    EXPECT_TRUE(a.node.job_bound->assumed.peak);
    // The node's own bound is wider: all of every part's error.
    ASSERT_TRUE(s->node.bound);
    EXPECT_NEAR(s->node.bound->half_width(), 320, 0.01);

    const auto j = run_to_json(*s).at("attribution");
    EXPECT_NEAR(j.at("job_low_j").get<double>(), 520, 0.01);
    EXPECT_NEAR(j.at("job_high_j").get<double>(), 830, 0.01);
    EXPECT_NEAR(j.at("job_bound_terms").at("idle_crossing").get<double>(), 50, 0.01);
    EXPECT_EQ(j.at("job_bound_dominant"), "edge staleness");
    EXPECT_EQ(j.at("job_measurable"), true);
    EXPECT_TRUE(j.at("parts").at(0).contains("job_low_j"));
    // A phase's share has its own: [2, 4] s of the same, the edges a counter's readings.
    const auto& phase = s->phases.front();
    ASSERT_TRUE(phase.node.share && phase.node.share->job_bound);
    EXPECT_LE(phase.node.share->job_bound->low, phase.node.share->job_j());
    EXPECT_GE(phase.node.share->job_bound->high, phase.node.share->job_j());
    // Repeats: the job's figure carries the sensors' bound on its mean.
    const auto group = aggregate_runs("job", {*s});
    ASSERT_TRUE(group.job_energy_j && group.job_energy_j->sensor);
    EXPECT_NEAR(group.job_energy_j->sensor->low, 520, 0.01);
}

TEST_F(Attribution_, AShareOfAPowerReadingIsBoundedByItsFieldAndAnEstimatesIsNot) {
    auto chans = channels();
    chans[2] = channel("gpu0", Domain::gpu, Quantity::power); // a power field, no counter
    const auto s = job_run(facts(k_idle), use(10), chans);
    ASSERT_TRUE(s && s->attribution);
    const auto& gpu = part(*s->attribution, "gpu0").share;
    ASSERT_TRUE(gpu.job_bound) << "each interval's energy within the field's bound over it";
    EXPECT_TRUE(gpu.job_bound->assumed.field);
    EXPECT_LE(gpu.job_bound->low, gpu.job_j());
    EXPECT_GE(gpu.job_bound->high, gpu.job_j());
    EXPECT_TRUE(part(*s->attribution, "cpu0.package").share.job_bound);
    ASSERT_TRUE(s->attribution->node.job_bound);
    EXPECT_TRUE(s->attribution->node.job_bound->assumed.field) << "a sum says what a term assumes";
    const auto j = run_to_json(*s).at("attribution");
    EXPECT_TRUE(j.contains("job_low_j")) << j.dump();
    EXPECT_TRUE(j.at("job_bound_assumes_field").get<bool>()) << j.dump();

    // A model's power (an estimate) is no measurement: no bound, nor for the sum.
    chans[2] = channel("gpu0", Domain::gpu, Quantity::power, Provenance::estimated);
    auto other = path;
    other += ".estimate";
    std::filesystem::remove(other);
    const auto es = job_run(facts(k_idle), use(10), chans, other);
    ASSERT_TRUE(es && es->attribution);
    EXPECT_FALSE(part(*es->attribution, "gpu0").share.job_bound);
    EXPECT_FALSE(es->attribution->node.job_bound); // a sum with an unbounded term
    EXPECT_FALSE(run_to_json(*es).at("attribution").contains("job_low_j"));
    std::filesystem::remove(other);
}

// A BMC's node power beside the packages' and GPUs' counters: the rest of the node (its
// reading less the parts) has no range at an instant, so each interval's rest lies within
// the node field's bound less the counters' (the ends crossed), and the job's share of it,
// and so of the node, has a bound that holds. The same where the BMC's reading is all there
// is (the node split whole).
TEST_F(Attribution_, TheRestOfANodeWhosePowerIsAFieldIsBoundedIntervalByInterval) {
    auto chans = channels();
    for (auto& c : chans) {
        c.update_ns = 1'000'000; // RAPL's and NVML's energy update as often as a millisecond
    }
    chans.push_back(channel("node", Domain::node, Quantity::power));
    const auto node_watts = [](std::size_t ch, double t) { // the parts and 100 W besides
        return ch < 4 ? watts(ch, t) : watts(0, t) + watts(1, t) + watts(2, t) + watts(3, t) + 100;
    };
    const auto given =
        facts(R"({"cpu0.package":10,"cpu1.package":10,"gpu0":30,"gpu1":30,"rest":20})");
    const auto s = job_run(given, use(10), chans, {}, node_watts);
    ASSERT_TRUE(s && s->attribution);
    const auto& rest = part(*s->attribution, "rest").share;
    // 1000 J of rest: 200 J idle, half of it given to the job (1 of 2 CPUs), and of the
    // 800 J above it the job's third of the node's CPU time.
    EXPECT_NEAR(rest.job_j(), 100 + 800.0 / 3, 1e-6);
    ASSERT_TRUE(rest.job_bound) << "the node's field less the counters, interval by interval";
    EXPECT_TRUE(rest.job_bound->assumed.field);
    EXPECT_LE(rest.job_bound->low, rest.job_j());
    EXPECT_GE(rest.job_bound->high, rest.job_j());
    EXPECT_LT(rest.job_bound->half_width(), rest.job_j()) << "measurable";
    ASSERT_TRUE(s->attribution->node.job_bound) << "every part bounded: so is the job's node";
    EXPECT_TRUE(s->attribution->node.job_bound->assumed.field);
    EXPECT_LE(s->attribution->node.job_bound->low, s->attribution->node.job_j());
    EXPECT_GE(s->attribution->node.job_bound->high, s->attribution->node.job_j());

    // Parts with no stated update (each may lag a second) widen it: their errors enter the
    // rest with the ends crossed.
    std::filesystem::remove(path);
    auto coarse = chans;
    for (std::size_t i = 0; i + 1 < coarse.size(); ++i) {
        coarse[i].update_ns = 0;
    }
    const auto c = job_run(given, use(10), coarse, {}, node_watts);
    ASSERT_TRUE(c && c->attribution);
    const auto& wide = part(*c->attribution, "rest").share;
    ASSERT_TRUE(wide.job_bound);
    EXPECT_GT(wide.job_bound->half_width(), rest.job_bound->half_width() + 10);
    EXPECT_LE(wide.job_bound->low, wide.job_j());
    EXPECT_GE(wide.job_bound->high, wide.job_j());

    // The BMC's reading alone: the node is split whole, and bounded the same way.
    std::filesystem::remove(path);
    const auto whole = job_run(facts(R"({"node":50})"), use(10), {chans.back()}, {},
                               [](std::size_t, double) { return 250.0; });
    ASSERT_TRUE(whole && whole->attribution);
    const auto& node = part(*whole->attribution, "node").share;
    ASSERT_TRUE(node.job_bound);
    EXPECT_LE(node.job_bound->low, node.job_j());
    EXPECT_GE(node.job_bound->high, node.job_j());
    EXPECT_GT(node.job_bound->high, node.job_bound->low);
}

} // namespace
} // namespace jp::report
