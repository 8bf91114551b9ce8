// SPDX-License-Identifier: BSD-3-Clause
// A source that samples on its own and is drained (the eBPF kernel sampler's shape): its
// readings go into the run at their own times; what it took before the run is not the run's
// zero; the edges are read after a drain; readings it lost are an event naming the channel;
// the call length it states is the channel's read time. A fake stands in for the kernel.
#include "core/clock.hpp"
#include "sampler/sampler.hpp"

#include <algorithm>
#include <atomic>
#include <gtest/gtest.h>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace jp {
namespace {

using sensors::ReadStatus;
using sensors::Stamped;
using sensors::Value;

// A counter that grows 1 J per ms of CLOCK_MONOTONIC since it was made: the truth at t.
class KernelLike final : public sensors::Sensor {
public:
    explicit KernelLike(bool batches) : m_batches(batches), m_zero(mono_ns()) {
        m_ch.name = "cpu0.package";
        m_ch.domain = Domain::cpu_package;
        m_ch.quantity = Quantity::energy;
        m_ch.backend = "fake";
    }
    std::string_view backend() const noexcept override { return "fake"; }
    std::span<const Channel> channels() const noexcept override { return {&m_ch, 1}; }
    void read(std::span<Value> out) noexcept override {
        out[0] = {joules_at(mono_ns()), ReadStatus::ok};
        ++m_reads;
    }
    void prepare(Nanos interval) override { m_interval = interval; }
    bool batched() const noexcept override { return m_batches; }
    // Every interval since the last drain, as the kernel would have read it then.
    void drain(std::vector<Stamped>& out, std::vector<std::uint64_t>& lost) override {
        ++m_drains;
        const auto now = mono_ns();
        if (m_last == 0) {
            m_last = m_zero;
        }
        std::uint64_t skipped = 0;
        for (auto t = m_last + m_interval.count(); t <= now; t += m_interval.count()) {
            if (m_lose_next.load() > 0) {
                m_lose_next.fetch_sub(1);
                ++skipped;
            } else {
                Value v{joules_at(t), ReadStatus::ok, t};
                v.call_ns = 2'000;
                out.push_back(Stamped{0, v});
            }
            m_last = t;
        }
        lost.assign(1, skipped);
    }
    static double joules_at(std::int64_t t) noexcept { return static_cast<double>(t) * 1e-6; }
    void lose_next(int n) noexcept { m_lose_next = n; }
    [[nodiscard]] int reads() const noexcept { return m_reads; }
    [[nodiscard]] int drains() const noexcept { return m_drains; }
    [[nodiscard]] Nanos interval() const noexcept { return m_interval; }

private:
    Channel m_ch;
    bool m_batches;
    std::int64_t m_zero;
    std::int64_t m_last = 0;
    Nanos m_interval{0};
    std::atomic<int> m_lose_next{0}; // set by the test while the sampler's thread drains
    int m_reads = 0;
    int m_drains = 0;
};

struct Run {
    std::vector<trace::SampleRecord> samples;
    std::vector<trace::Event> events;
    std::int64_t begin = 0;
    std::int64_t end = 0;
};

Run run_for(Sampler& s, std::chrono::milliseconds length) {
    Run r;
    r.begin = s.begin(1);
    std::this_thread::sleep_for(length);
    r.end = s.end();
    s.drain(r.samples, r.events);
    return r;
}

// A sampler over one KernelLike that batches, ticking at 1 ms and drained every 50 ms.
struct BatchedRig {
    BatchedRig() {
        std::vector<std::unique_ptr<sensors::Sensor>> sensors;
        sensors.push_back(std::make_unique<KernelLike>(true));
        source = dynamic_cast<KernelLike*>(sensors[0].get());
        const std::vector<Channel> table{sensors[0]->channels()[0]};
        SamplerConfig config{std::chrono::milliseconds{1}, {}};
        config.drain_interval = std::chrono::milliseconds{50};
        sampler = std::make_unique<Sampler>(std::move(sensors), table, config, epoch);
    }
    std::int64_t epoch = mono_ns();
    KernelLike* source = nullptr;
    std::unique_ptr<Sampler> sampler;
};

TEST(SamplerBatch, ReadingsGoInAtTheirOwnTimesAndEdgesAreReadAfterADrain) {
    BatchedRig rig;
    auto* source = rig.source;
    auto& s = *rig.sampler;
    const auto epoch = rig.epoch;
    EXPECT_EQ(source->interval(), std::chrono::milliseconds{1})
        << "the source ticks at the interval";
    std::this_thread::sleep_for(std::chrono::milliseconds{30}); // taken before the run
    const auto r = run_for(s, std::chrono::milliseconds{400});

    EXPECT_EQ(source->reads(), 2) << "read only at the two edges: the rest is drained";
    EXPECT_GE(source->drains(), 4) << "drained every 50 ms, and before each edge";
    ASSERT_GE(r.samples.size(), 350U) << "a reading per ms of the run";
    EXPECT_TRUE(r.samples.front().flags & trace::k_flag_edge);
    EXPECT_EQ(r.samples.front().value, 0) << "the start edge is the run's zero, not a reading "
                                             "taken before it";
    EXPECT_LE(r.samples.front().t_ns, r.begin);
    EXPECT_TRUE(r.samples.back().flags & trace::k_flag_edge) << "the end edge comes last";
    for (std::size_t i = 1; i < r.samples.size(); ++i) {
        const auto& a = r.samples[i - 1];
        const auto& b = r.samples[i];
        ASSERT_LT(a.t_ns, b.t_ns) << "times increase at " << i;
        // Each reading is the truth at its own time: 1 J per ms. A drained reading is set
        // against the first drained one (10 µs of slack); where an edge is in the pair, against
        // the start edge, which is stamped at its read call's middle, and a loaded machine can
        // stretch that (29 µs off in a CI run, 11 µs in another): 1 ms of slack.
        const auto& first_drained = r.samples[1];
        const bool edge = (b.flags & trace::k_flag_edge) != 0 ||
                          (first_drained.flags & trace::k_flag_edge) != 0 || i == 1;
        const auto& from = edge ? r.samples.front() : first_drained;
        const double want = KernelLike::joules_at(b.t_ns + epoch) -
                            KernelLike::joules_at(from.t_ns + epoch) +
                            (from.value - r.samples.front().value);
        const double slack = edge ? 1.0 : 0.01;
        ASSERT_NEAR(b.value, want, slack) << "reading " << i << " kept its own time";
    }
    EXPECT_GE(s.read_times()[0], 2'000) << "the source's stated call is the read time";
    EXPECT_TRUE(r.events.empty());
}

TEST(SamplerBatch, ReadingsTheSourceLostAreAnEventNamingTheChannelAndEnergyStaysExact) {
    BatchedRig rig;
    auto* source = rig.source;
    auto& s = *rig.sampler;
    source->lose_next(0);
    (void)s.begin(1);
    source->lose_next(100); // the next 100 ticks find the buffer full
    std::this_thread::sleep_for(std::chrono::milliseconds{300});
    (void)s.end();
    std::vector<trace::SampleRecord> samples;
    std::vector<trace::Event> events;
    s.drain(samples, events);
    int lost = 0; // over the drains the loss spanned
    for (const auto& e : events) {
        if (e.kind == "lost") {
            const std::string_view head{"cpu0.package: "};
            ASSERT_TRUE(e.detail.starts_with(head)) << e.detail;
            EXPECT_NE(e.detail.find("readings taken in the kernel were lost"), std::string::npos);
            EXPECT_EQ(e.channel, 0);
            lost += std::stoi(e.detail.substr(head.size()));
        }
    }
    EXPECT_EQ(lost, 100);
    ASSERT_FALSE(samples.empty());
    // The edges' values against their own stamps (each the middle of its read call).
    EXPECT_NEAR(samples.back().value,
                static_cast<double>(samples.back().t_ns - samples.front().t_ns) * 1e-6, 0.05)
        << "a cumulative counter: the gap loses detail, not energy";
}

TEST(SamplerBatch, TheDrainCompanionRidesEachDrainWhileARunIsSampledAndOnlyThen) {
    BatchedRig rig;
    auto& s = *rig.sampler;
    std::mutex mutex;
    std::vector<std::int64_t> calls; // the times the companion was given
    const auto taken = [&] {
        const std::lock_guard lock{mutex};
        return calls;
    };
    ASSERT_TRUE(s.set_drain_companion([&](std::int64_t t) {
        const std::lock_guard lock{mutex};
        calls.push_back(t);
    }));
    std::this_thread::sleep_for(std::chrono::milliseconds{120}); // no run: no drain thread
    EXPECT_TRUE(taken().empty()) << "called before any run";
    const auto r = run_for(s, std::chrono::milliseconds{300});
    const auto during = taken();
    // Once a drain, every 50 ms (a loaded machine may run one late, never one extra).
    const auto drains = static_cast<std::size_t>((r.end - r.begin) / 50'000'000);
    EXPECT_GE(during.size(), 3U);
    EXPECT_LE(during.size(), drains) << "more calls than drains";
    for (std::size_t i = 0; i < during.size(); ++i) {
        EXPECT_GT(during[i], r.begin) << "call " << i;
        EXPECT_TRUE(i == 0 || during[i] > during[i - 1]) << "call " << i;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{120});
    EXPECT_EQ(taken().size(), during.size()) << "no call after the run ended";
}

TEST(SamplerBatch, WithoutABatchedSourceNothingWouldRunACompanion) {
    std::vector<std::unique_ptr<sensors::Sensor>> sensors;
    sensors.push_back(std::make_unique<KernelLike>(false));
    const std::vector<Channel> table{sensors[0]->channels()[0]};
    Sampler s{std::move(sensors), table, SamplerConfig{std::chrono::milliseconds{10}, {}},
              mono_ns()};
    EXPECT_FALSE(s.set_drain_companion([](std::int64_t) {}));
}

TEST(SamplerBatch, ASourceThatDoesNotBatchIsReadFromTheTimer) {
    std::vector<std::unique_ptr<sensors::Sensor>> sensors;
    sensors.push_back(std::make_unique<KernelLike>(false));
    auto* source = dynamic_cast<KernelLike*>(sensors[0].get());
    const std::vector<Channel> table{sensors[0]->channels()[0]};
    Sampler s{std::move(sensors), table, SamplerConfig{std::chrono::milliseconds{10}, {}},
              mono_ns()};
    const auto r = run_for(s, std::chrono::milliseconds{200});
    EXPECT_EQ(source->drains(), 0);
    EXPECT_GE(source->reads(), 12) << "edges and about 20 ticks";
    EXPECT_GE(r.samples.size(), 12U);
}

} // namespace
} // namespace jp
