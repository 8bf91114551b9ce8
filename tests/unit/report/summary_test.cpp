// SPDX-License-Identifier: BSD-3-Clause
#include "fake_sysfs.hpp"
#include "report/format.hpp"
#include "report/summary.hpp"
#include "trace/writer.hpp"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>

namespace jp::report {
namespace {

constexpr std::int64_t k_s = 1'000'000'000;

Channel make(std::string name, Domain d, Quantity q, Provenance p = Provenance::measured) {
    Channel c;
    c.name = std::move(name);
    c.domain = d;
    c.quantity = q;
    c.provenance = p;
    c.backend = "test";
    return c;
}

// Writes runs of `seconds` s sampled each second: channel i follows watts[i]
// (energy channels as cumulative joules, power channels as watts).
class TraceBuilder {
public:
    TraceBuilder(const test::FakeSysfs& fs,
                 std::vector<Channel> channels,
                 std::map<std::string, std::string> meta = {})
        : m_path(fs.path("/t.jptrace")), m_channels(std::move(channels)),
          m_writer(std::move(*trace::Writer::create(m_path, meta))) {
        EXPECT_TRUE(m_writer.add_channels(m_channels));
    }
    std::int64_t
    run(const std::string& label, const std::string& kind, std::vector<double> watts, int seconds) {
        trace::RunInfo r;
        r.label = label;
        r.kind = kind;
        r.start_ns = m_t;
        r.id = *m_writer.begin_run(r);
        std::vector<trace::SampleRecord> samples;
        for (int s = 0; s <= seconds; ++s) {
            for (std::size_t i = 0; i < m_channels.size(); ++i) {
                if (const auto lost = lose_after.find(i);
                    lost != lose_after.end() && s > lost->second) {
                    continue;
                }
                const bool energy = m_channels[i].quantity == Quantity::energy;
                samples.push_back({static_cast<std::int32_t>(i), 0, m_t + s * k_s,
                                   energy ? watts[i] * s : watts[i]});
            }
        }
        EXPECT_TRUE(m_writer.append(samples, r.id));
        r.end_ns = m_t + seconds * k_s;
        r.status = "complete";
        EXPECT_TRUE(m_writer.end_run(r));
        EXPECT_TRUE(m_writer.commit());
        m_t += (seconds + 5) * k_s;
        return r.id;
    }
    void event(const trace::Event& e) {
        EXPECT_TRUE(m_writer.add_event(e));
        EXPECT_TRUE(m_writer.commit());
    }
    trace::Reader reader() { return std::move(*trace::Reader::open(m_path)); }
    std::map<std::size_t, int> lose_after; // channel: its last reading's second in a run

private:
    std::filesystem::path m_path;
    std::vector<Channel> m_channels;
    trace::Writer m_writer;
    std::int64_t m_t = 0;
};

TEST(Summary, MeasuredNodeGivesDerivedRest) {
    test::FakeSysfs fs;
    TraceBuilder b{fs,
                   {make("node", Domain::node, Quantity::power),
                    make("cpu0.package", Domain::cpu_package, Quantity::energy),
                    make("gpu0", Domain::gpu, Quantity::energy)}};
    b.run("a", "measure", {500, 200, 100}, 10);
    auto r = b.reader();
    auto s = summarize_run(r, r.runs()[0]);
    ASSERT_TRUE(s);
    EXPECT_NEAR(s->runtime_s, 10.0, 1e-12);
    EXPECT_NEAR(s->node.energy_j, 5000, 1e-9);
    EXPECT_EQ(s->node.provenance, Provenance::measured);
    ASSERT_TRUE(s->rest);
    EXPECT_NEAR(s->rest->energy_j, 2000, 1e-9);
    EXPECT_EQ(s->rest->provenance, Provenance::derived);
    ASSERT_EQ(s->parts.size(), 2U);
    EXPECT_NEAR(s->parts[0].avg_w, 200, 1e-9);
    EXPECT_NEAR(*s->parts[1].peak_w, 100, 1e-9);
}

TEST(Summary, WithoutNodeMeterNodeIsPartsPlusRestModelAndEstimated) {
    test::FakeSysfs fs;
    auto core = make("cpu0.core", Domain::cpu_core, Quantity::energy);
    core.counted = false;
    core.parent = "cpu0.package";
    TraceBuilder b{fs,
                   {make("cpu0.package", Domain::cpu_package, Quantity::energy),
                    make("dram.estimate", Domain::dram, Quantity::power, Provenance::estimated),
                    core},
                   {{"node.rest_watts", "50"}, {"node.rated_watts", "1000"}}};
    b.run("a", "measure", {200, 10, 150}, 4);
    auto r = b.reader();
    auto s = summarize_run(r, r.runs()[0]);
    ASSERT_TRUE(s);
    // cpu0.core lies inside the package: shown, not summed.
    EXPECT_NEAR(s->node.energy_j, (200 + 10 + 50) * 4.0, 1e-9);
    ASSERT_EQ(s->others.size(), 1U);
    EXPECT_NEAR(s->others[0].energy_j, 600, 1e-9);
    EXPECT_EQ(s->node.provenance, Provenance::estimated);
    EXPECT_FALSE(s->node.lower_bound) << "the rest-of-node model fills the rest";
    ASSERT_TRUE(s->rest);
    EXPECT_NEAR(s->rest->energy_j, 200, 1e-9);
    EXPECT_NEAR(*s->node.peak_w, 260, 1e-9);
    const auto text = format_text(*summarize_trace(r), node_facts(r));
    EXPECT_NE(text.find("peak 260.0 W = 26 % of rated 1.0 kW (config)"), std::string::npos) << text;
    EXPECT_NE(text.find("estimated"), std::string::npos);
}

TEST(Summary, MeasuredPartsWithoutNodeMeterOrModelAreADerivedLowerBound) {
    test::FakeSysfs fs;
    TraceBuilder b{fs,
                   {make("cpu0.package", Domain::cpu_package, Quantity::energy),
                    make("cpu0.dram", Domain::dram, Quantity::energy)}};
    b.run("a", "measure", {200, 20}, 4);
    auto r = b.reader();
    auto s = summarize_run(r, r.runs()[0]);
    ASSERT_TRUE(s);
    EXPECT_NEAR(s->node.energy_j, 220 * 4.0, 1e-9);
    EXPECT_EQ(s->node.provenance, Provenance::derived) << "no model: not estimated";
    EXPECT_TRUE(s->node.lower_bound);
    EXPECT_FALSE(s->rest) << "the rest of the node is unknown, not zero";
    for (const auto& note : s->notes) {
        EXPECT_EQ(note.find("estimated"), std::string::npos) << note;
    }
    const auto groups = summarize_trace(r);
    ASSERT_TRUE(groups);
    const auto text = format_text(*groups, node_facts(r));
    EXPECT_NE(text.find("derived, lower bound"), std::string::npos) << text;
    EXPECT_EQ(text.find("estimated"), std::string::npos) << text;
    const auto j = to_json(*groups, node_facts(r));
    EXPECT_EQ(j["groups"][0]["runs"][0]["node"]["lower_bound"], true);
    EXPECT_EQ(j["groups"][0]["runs"][0]["node"]["provenance"], "derived");
}

TEST(Summary, ACounterThatNeverMovedIsNotAMeasurementOfZero) {
    // Seen on a GPU VM: the perf power PMU lists energy-psys, which reads 0 for ever.
    test::FakeSysfs fs;
    TraceBuilder b{fs,
                   {make("gpu0", Domain::gpu, Quantity::energy),
                    make("psys", Domain::psys, Quantity::energy),
                    make("cpu0.dram", Domain::dram, Quantity::energy)}};
    const auto id = b.run("a", "measure", {600, 0, 20}, 10);
    b.event({id, 1, 5 * k_s, "stuck", "psys: counter unchanged for 5 s or more"});
    b.event({id, 2, 6 * k_s, "stuck", "cpu0.dram: counter unchanged for 5 s or more"});
    auto r = b.reader();
    auto s = summarize_run(r, r.runs()[0]);
    ASSERT_TRUE(s);
    const auto item = [&](const std::string& name) {
        for (const auto* items : {&s->parts, &s->others}) {
            if (const auto it = std::ranges::find(*items, name, &Item::name); it != items->end()) {
                return *it;
            }
        }
        ADD_FAILURE() << name << " is not in the summary";
        return Item{};
    };
    EXPECT_TRUE(item("psys").never_changed);
    EXPECT_FALSE(item("gpu0").never_changed);
    EXPECT_FALSE(item("cpu0.dram").never_changed) << "stuck for a while, but it moved";
    EXPECT_EQ(std::ranges::count_if(
                  s->notes,
                  [](const auto& n) { return n.starts_with("psys: its counter never changed"); }),
              1);
    const auto groups = summarize_trace(r);
    ASSERT_TRUE(groups);
    const auto text = format_text(*groups, node_facts(r));
    EXPECT_NE(text.find("measured (test), never changed"), std::string::npos) << text;
    const auto j = to_json(*groups, node_facts(r));
    bool flagged = false;
    for (const auto& p : j["groups"][0]["runs"][0]["parts"]) {
        flagged = flagged || (p["name"] == "psys" && p.value("never_changed", false));
    }
    EXPECT_TRUE(flagged) << j.dump();
}

TEST(Summary, ALostChannelCoversTheTimeToItsLastReadingAndNotTheGapAsZero) {
    test::FakeSysfs fs;
    TraceBuilder b{fs,
                   {make("cpu0.package", Domain::cpu_package, Quantity::energy),
                    make("cpu0.dram", Domain::dram, Quantity::energy)}};
    b.lose_after = {{0, 4}, {1, 0}}; // the package's last reading at 4 s, the dram's at the start
    const auto id = b.run("a", "measure", {100, 10}, 10);
    b.event({id, 0, 4 * k_s + k_s / 2, "gone", "cpu0.package disappeared"});
    b.event({id, 1, k_s / 2, "gone", "cpu0.dram disappeared"});
    auto r = b.reader();
    auto s = summarize_run(r, r.runs()[0]);
    ASSERT_TRUE(s);
    const auto& pkg = *std::ranges::find(s->parts, "cpu0.package", &Item::name);
    ASSERT_TRUE(pkg.lost_at_s);
    EXPECT_DOUBLE_EQ(*pkg.lost_at_s, 4.0) << "its last reading, not when the loss was noticed";
    EXPECT_NEAR(pkg.energy_j, 400.0, 1e-9) << "the 4 s it covers";
    EXPECT_NEAR(pkg.avg_w, 100.0, 1e-9) << "averaged over those 4 s, not the run's 10";
    const auto& dram = *std::ranges::find(s->parts, "cpu0.dram", &Item::name);
    EXPECT_DOUBLE_EQ(dram.lost_at_s.value_or(-1), 0.0);
    EXPECT_FALSE(s->complete);
    const auto said = [&](std::string_view what) {
        return std::ranges::any_of(
            s->notes, [&](const auto& n) { return n.find(what) != std::string::npos; });
    };
    EXPECT_TRUE(said("its last reading was at 4.000 s: its figures, and the node's, cover only "
                     "those 4.000 s of 10.000 s (the rest is not counted, not as zero either)"));
    EXPECT_TRUE(said("cpu0.dram was lost 0.500 s into the run (cpu0.dram disappeared) with no "
                     "reading after the start: it measured nothing of this run"));
    const auto groups = summarize_trace(r);
    ASSERT_TRUE(groups);
    const auto text = format_text(*groups, node_facts(r));
    EXPECT_NE(text.find("measured (test), lost after 4.0 s"), std::string::npos) << text;
    EXPECT_NE(text.find("measured (test), lost: no reading after the start"), std::string::npos)
        << text;
}

TEST(Summary, AnEstimatedPartMakesTheNodeEstimatedAndStillALowerBound) {
    test::FakeSysfs fs;
    TraceBuilder b{
        fs, {make("cpu.estimate", Domain::cpu_package, Quantity::power, Provenance::estimated)}};
    b.run("a", "measure", {90}, 3);
    auto r = b.reader();
    auto s = summarize_run(r, r.runs()[0]);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->node.provenance, Provenance::estimated);
    EXPECT_TRUE(s->node.lower_bound);
    EXPECT_NE(std::ranges::find_if(
                  s->notes, [](const auto& n) { return n.find("model") != std::string::npos; }),
              s->notes.end());
}

TEST(Summary, RepeatsGroupByLabelWithSampleStdAndBaseline) {
    test::FakeSysfs fs;
    TraceBuilder b{fs, {make("node", Domain::node, Quantity::energy)}};
    b.run("a", "baseline", {100}, 5);
    b.run("a", "warmup", {999}, 2);
    b.run("a", "measure", {300}, 2);
    b.run("a", "measure", {400}, 2);
    b.run("a", "measure", {500}, 2);
    b.run("b", "measure", {700}, 3);
    auto r = b.reader();
    auto groups = summarize_trace(r);
    ASSERT_TRUE(groups);
    ASSERT_EQ(groups->size(), 2U);
    const auto& a = (*groups)[0];
    EXPECT_EQ(a.runs.size(), 3U) << "warm-up and baseline are not measured runs";
    EXPECT_NEAR(a.node_energy_j.mean, 800, 1e-9);
    EXPECT_NEAR(a.node_energy_j.std, 200, 1e-9); // sample std of 600, 800, 1000
    EXPECT_NEAR(*a.idle_w, 100, 1e-9);
    EXPECT_NEAR(a.dynamic_energy_j->mean, 800 - 100 * 2, 1e-9);
    EXPECT_EQ((*groups)[1].label, "b");
    const auto j = to_json(*groups, node_facts(r));
    EXPECT_EQ(j["groups"][0]["node_energy_j"]["n"], 3);
}

TEST(Summary, StatOfUsesTheSampleStandardDeviation) {
    const auto s = stat_of({1, 2, 3, 4});
    EXPECT_DOUBLE_EQ(s.mean, 2.5);
    EXPECT_NEAR(s.std, std::sqrt(5.0 / 3.0), 1e-12);
    EXPECT_EQ(stat_of({7}).std, 0.0);
    EXPECT_EQ(stat_of({}).n, 0U);
}

TEST(Summary, PeakIsNeverBelowTheMean) {
    test::FakeSysfs fs;
    TraceBuilder b{fs, {make("cpu0.package", Domain::cpu_package, Quantity::energy)}};
    b.run("a", "measure", {120}, 1); // one window only
    auto r = b.reader();
    auto s = summarize_run(r, r.runs()[0]);
    ASSERT_TRUE(s);
    EXPECT_GE(*s->node.peak_w, s->node.avg_w - 1e-9);
}

} // namespace
} // namespace jp::report
