// SPDX-License-Identifier: BSD-3-Clause
#include "core/clock.hpp"
#include "sampler/sampler.hpp"

#include <atomic>
#include <gtest/gtest.h>
#include <mutex>
#include <thread>

namespace jp {
namespace {

using sensors::ReadStatus;
using sensors::Value;

// A counter at a constant power, read from the real clock.
class ConstantPowerCounter final : public sensors::Sensor {
public:
    explicit ConstantPowerCounter(double watts, double start_j = 0)
        : m_watts(watts), m_start(start_j) {
        m_ch.name = "cpu0.package";
        m_ch.domain = Domain::cpu_package;
        m_ch.quantity = Quantity::energy;
        m_ch.backend = "fake";
    }
    std::string_view backend() const noexcept override { return "fake"; }
    std::span<const Channel> channels() const noexcept override { return {&m_ch, 1}; }
    void read(std::span<Value> out) noexcept override {
        // Stamped with its own clock reading, so the check below is exact however late
        // the sampler's thread ran.
        const auto now = mono_ns();
        out[0] = {m_start + m_watts * static_cast<double>(now - m_t0) * 1e-9, ReadStatus::ok, now};
        ++reads;
    }
    std::atomic<int> reads{0};

private:
    Channel m_ch;
    double m_watts;
    double m_start;
    std::int64_t m_t0 = mono_ns();
};

// A BMC that takes 300 ms to answer.
class SlowMeter final : public sensors::Sensor {
public:
    SlowMeter() {
        m_ch.name = "node";
        m_ch.domain = Domain::node;
        m_ch.quantity = Quantity::power;
        m_ch.backend = "slow";
    }
    std::string_view backend() const noexcept override { return "slow"; }
    std::span<const Channel> channels() const noexcept override { return {&m_ch, 1}; }
    bool slow() const noexcept override { return true; }
    void read(std::span<Value> out) noexcept override {
        std::this_thread::sleep_for(std::chrono::milliseconds{300});
        out[0] = {500.0, ReadStatus::ok};
    }

private:
    Channel m_ch;
};

std::vector<Channel> table_of(const std::vector<std::unique_ptr<sensors::Sensor>>& sensors) {
    std::vector<Channel> t;
    for (const auto& s : sensors) {
        for (const auto& c : s->channels()) {
            t.push_back(c);
        }
    }
    return t;
}

TEST(Sampler, EdgesBracketTheRunAndCountersStartAtZero) {
    std::vector<std::unique_ptr<sensors::Sensor>> sensors;
    sensors.push_back(std::make_unique<ConstantPowerCounter>(200.0, 5000.0));
    auto table = table_of(sensors);
    const auto epoch = mono_ns();
    Sampler s{std::move(sensors), table, SamplerConfig{std::chrono::seconds{1}, {}}, epoch};
    const auto t0 = s.begin(1);
    std::this_thread::sleep_for(std::chrono::milliseconds{350}); // shorter than the interval
    const auto t1 = s.end();
    std::vector<trace::SampleRecord> samples;
    std::vector<trace::Event> events;
    s.drain(samples, events);
    ASSERT_EQ(samples.size(), 2U) << "only the two edge reads within one interval";
    EXPECT_EQ(samples[0].flags & trace::k_flag_edge, trace::k_flag_edge);
    EXPECT_DOUBLE_EQ(samples[0].value, 0.0);
    EXPECT_EQ(samples[1].flags & trace::k_flag_edge, trace::k_flag_edge);
    const double seconds = static_cast<double>(samples[1].t_ns - samples[0].t_ns) * 1e-9;
    EXPECT_NEAR(samples[1].value, 200.0 * seconds, 0.01);
    EXPECT_GE(t1 - t0, 350'000'000) << "the edges bracket the 350 ms the run lasted";
    EXPECT_TRUE(events.empty());
}

TEST(Sampler, SlowSourceDoesNotDelayFastOnes) {
    std::vector<std::unique_ptr<sensors::Sensor>> sensors;
    auto fast = std::make_unique<ConstantPowerCounter>(100.0);
    auto* fast_ptr = fast.get();
    sensors.push_back(std::move(fast));
    sensors.push_back(std::make_unique<SlowMeter>());
    auto table = table_of(sensors);
    Sampler s{std::move(sensors), table, SamplerConfig{std::chrono::milliseconds{10}, {}},
              mono_ns()};
    const auto started = mono_ns();
    s.begin(1);
    std::this_thread::sleep_for(std::chrono::milliseconds{600});
    s.end();
    const auto elapsed_ns = mono_ns() - started;
    // 60 ticks at 10 ms plus two edges; allow scheduling slack on a loaded machine.
    EXPECT_GE(fast_ptr->reads.load(), 40);
    // Every tick's wake-up is in the lateness histogram: the reads but the two edges.
    EXPECT_EQ(s.lateness().count() + 2, static_cast<std::uint64_t>(fast_ptr->reads.load()));
    EXPECT_TRUE(s.lateness().quantile(0.99));
    std::vector<trace::SampleRecord> samples;
    std::vector<trace::Event> events;
    s.drain(samples, events);
    int slow_samples = 0;
    for (const auto& r : samples) {
        slow_samples += r.channel == 1 ? 1 : 0;
    }
    // Each read of the slow meter takes 300 ms: at most one per 300 ms of the run, one more in
    // flight at the end, and the two edges. The bound follows the time the run really took, as
    // a loaded machine stretches it (CI once saw 4 samples in a 1.2 s run).
    const auto most = 3 + static_cast<int>(elapsed_ns / 300'000'000);
    EXPECT_GE(slow_samples, 1);
    EXPECT_LE(slow_samples, most) << "run took " << elapsed_ns / 1'000'000 << " ms";
}

TEST(Sampler, LiveFiguresFollowTheCountedParts) {
    std::vector<std::unique_ptr<sensors::Sensor>> sensors;
    sensors.push_back(std::make_unique<ConstantPowerCounter>(250.0));
    auto table = table_of(sensors);
    Sampler s{std::move(sensors), table, SamplerConfig{std::chrono::milliseconds{20}, {}},
              mono_ns()};
    s.begin(1);
    std::this_thread::sleep_for(std::chrono::milliseconds{200});
    const auto live = s.live();
    s.end();
    EXPECT_NEAR(live.watts, 250.0, 5.0);
    EXPECT_GT(live.joules, 30.0);
}

// A source that stamps its own readings (as jouleprofd's are): edges are read
// with read_edge(), the rest with read(); it answers from a script.
class StampedSource final : public sensors::Sensor {
public:
    StampedSource() {
        m_ch.name = "cpu0.package";
        m_ch.domain = Domain::cpu_package;
        m_ch.quantity = Quantity::energy;
        m_ch.backend = "stamped";
    }
    std::string_view backend() const noexcept override { return "stamped"; }
    std::span<const Channel> channels() const noexcept override { return {&m_ch, 1}; }
    void read(std::span<Value> out) noexcept override { out[0] = next(reads); }
    void read_edge(std::span<Value> out) noexcept override {
        if (slow_edge.count() > 0) { // a daemon on a busy machine: read now, reply late
            out[0] = {static_cast<double>(++edge_reads), ReadStatus::ok, mono_ns()};
            std::this_thread::sleep_for(slow_edge);
            return;
        }
        out[0] = next(edge_reads);
    }
    std::chrono::milliseconds slow_edge{0};
    void prepare(Nanos interval) override { prepared = interval; }

    std::vector<Value> script; // handed out in order; then "retry"
    std::atomic<int> reads{0};
    std::atomic<int> edge_reads{0};
    Nanos prepared{0};

private:
    Value next(std::atomic<int>& counter) {
        ++counter;
        const std::lock_guard lock{m_mutex};
        if (m_next >= script.size()) {
            return {0, ReadStatus::retry};
        }
        return script[m_next++];
    }
    Channel m_ch;
    std::mutex m_mutex;
    std::size_t m_next = 0;
};

TEST(Sampler, EdgesUseReadEdgeAndSourcesLearnTheirInterval) {
    std::vector<std::unique_ptr<sensors::Sensor>> sensors;
    auto src = std::make_unique<StampedSource>();
    auto* p = src.get();
    const auto epoch = mono_ns();
    p->script = {{10.0, ReadStatus::ok, epoch + 1'000}, {12.0, ReadStatus::ok, epoch + 2'000}};
    sensors.push_back(std::move(src));
    auto table = table_of(sensors);
    Sampler s{std::move(sensors), table, SamplerConfig{std::chrono::hours{1}, {}}, epoch};
    EXPECT_EQ(p->prepared, std::chrono::hours{1}) << "told before sampling starts";
    std::this_thread::sleep_for(std::chrono::milliseconds{20}); // the script's values age
    s.begin(1);
    s.end();
    EXPECT_EQ(p->edge_reads.load(), 2);
    EXPECT_EQ(p->reads.load(), 0) << "no tick within an hour";
    std::vector<trace::SampleRecord> samples;
    std::vector<trace::Event> events;
    s.drain(samples, events);
    ASSERT_EQ(samples.size(), 2U);
    EXPECT_EQ(samples[0].t_ns, 1'000) << "the source's own time, not the read's";
    EXPECT_DOUBLE_EQ(samples[1].value, 2.0);
    ASSERT_FALSE(events.empty()) << "edge values this old are named";
    EXPECT_EQ(events.front().kind, "stale_edge");
}

TEST(Sampler, AnEdgeReadDuringASlowCallIsExactNotStale) {
    std::vector<std::unique_ptr<sensors::Sensor>> sensors;
    auto src = std::make_unique<StampedSource>();
    src->slow_edge = std::chrono::milliseconds{30};
    sensors.push_back(std::move(src));
    auto table = table_of(sensors);
    const auto epoch = mono_ns();
    Sampler s{std::move(sensors), table, SamplerConfig{std::chrono::hours{1}, {}}, epoch};
    s.begin(1);
    s.end();
    std::vector<trace::SampleRecord> samples;
    std::vector<trace::Event> events;
    s.drain(samples, events);
    ASSERT_EQ(samples.size(), 2U);
    EXPECT_GE(samples[1].t_ns - samples[0].t_ns, 30'000'000) << "each value keeps its own time";
    EXPECT_TRUE(events.empty()) << events.front().detail;
}

TEST(Sampler, AReadingNoNewerThanTheLastIsNotRecordedAgain) {
    std::vector<std::unique_ptr<sensors::Sensor>> sensors;
    auto src = std::make_unique<StampedSource>();
    auto* p = src.get();
    const auto epoch = mono_ns();
    p->script = {{10.0, ReadStatus::ok, epoch + 5'000},
                 {11.0, ReadStatus::ok, epoch + 5'000}, // the same reading again
                 {9.0, ReadStatus::ok, epoch + 4'000},  // an older one
                 {13.0, ReadStatus::ok, epoch + 9'000}};
    sensors.push_back(std::move(src));
    auto table = table_of(sensors);
    Sampler s{std::move(sensors), table, SamplerConfig{std::chrono::milliseconds{1}, {}}, epoch};
    s.begin(1);
    while (p->reads.load() < 5) {
        std::this_thread::sleep_for(std::chrono::milliseconds{1});
    }
    s.end();
    std::vector<trace::SampleRecord> samples;
    std::vector<trace::Event> events;
    s.drain(samples, events);
    ASSERT_EQ(samples.size(), 2U);
    EXPECT_EQ(samples[1].t_ns, 9'000);
    EXPECT_DOUBLE_EQ(samples[1].value, 3.0);
}

TEST(Sampler, NoValueAtTheStartEdgeMakesTheNextOneTheZero) {
    std::vector<std::unique_ptr<sensors::Sensor>> sensors;
    sensors.push_back(std::make_unique<ConstantPowerCounter>(100.0, 50.0));
    auto src = std::make_unique<StampedSource>();
    auto* p = src.get();
    sensors.push_back(std::move(src));
    auto table = table_of(sensors);
    const auto epoch = mono_ns();
    Sampler s{std::move(sensors), table, SamplerConfig{std::chrono::hours{1}, {}}, epoch};
    p->script = {{100.0, ReadStatus::ok, 0}, {150.0, ReadStatus::ok, 0}};
    s.begin(1); // run 1: 100 J at start, 150 J at the end
    s.end();
    p->script.push_back({0, ReadStatus::retry, 0});  // run 2 starts without a value...
    p->script.push_back({170.0, ReadStatus::ok, 0}); // ...and ends at 170 J
    s.begin(2);
    s.end();
    std::vector<trace::SampleRecord> samples;
    std::vector<trace::Event> events;
    s.drain(samples, events);
    std::vector<double> stamped; // run 1's two edges, run 2's end edge
    for (const auto& r : samples) {
        if (r.channel == 1) {
            stamped.push_back(r.value);
        }
    }
    ASSERT_EQ(stamped.size(), 3U);
    EXPECT_DOUBLE_EQ(stamped[1], 50.0);
    EXPECT_DOUBLE_EQ(stamped[2], 0.0) << "not 20 J carried over from run 1's counter";
}

} // namespace
} // namespace jp
