// SPDX-License-Identifier: BSD-3-Clause
// When the trace writer falls behind by more than the sampler's queue holds,
// the readings that did not fit are counted and said once, as a "dropped"
// event of the run, never lost silently.
#include "core/clock.hpp"
#include "sampler/sample_queue.hpp"
#include "sampler/sampler.hpp"

#include <chrono>
#include <gtest/gtest.h>
#include <thread>

namespace jp {
namespace {

class Counter final : public sensors::Sensor {
public:
    Counter() {
        m_ch.name = "cpu0.package";
        m_ch.domain = Domain::cpu_package;
        m_ch.quantity = Quantity::energy;
        m_ch.backend = "fake";
    }
    std::string_view backend() const noexcept override { return "fake"; }
    std::span<const Channel> channels() const noexcept override { return {&m_ch, 1}; }
    void read(std::span<sensors::Value> out) noexcept override {
        out[0] = {static_cast<double>(++reads), sensors::ReadStatus::ok};
    }
    std::atomic<int> reads{0};

private:
    Channel m_ch;
};

TEST(SamplerQueue, ReadingsThatDoNotFitAreCountedAndSaidOnce) {
    std::vector<std::unique_ptr<sensors::Sensor>> sensors;
    auto counter = std::make_unique<Counter>();
    auto* c = counter.get();
    sensors.push_back(std::move(counter));
    std::vector<Channel> table{sensors[0]->channels()[0]};
    constexpr std::size_t k_capacity = 8;
    Sampler s{std::move(sensors), table,
              SamplerConfig{std::chrono::milliseconds{10}, {}, k_capacity}, mono_ns()};
    s.begin(7);
    // Wait for the readings rather than a time: more than the queue holds.
    while (c->reads.load() < 20) {
        std::this_thread::sleep_for(std::chrono::milliseconds{5});
    }
    s.end();
    std::vector<trace::SampleRecord> samples;
    std::vector<trace::Event> events;
    s.drain(samples, events);
    EXPECT_EQ(samples.size(), k_capacity);
    ASSERT_EQ(events.size(), 1U);
    EXPECT_EQ(events[0].kind, "dropped");
    EXPECT_EQ(events[0].run_id, 7);
    EXPECT_EQ(events[0].channel, -1);
    const auto lost = static_cast<std::uint64_t>(c->reads.load()) - k_capacity;
    EXPECT_EQ(s.dropped_samples(), lost);
    EXPECT_EQ(events[0].detail.find(std::to_string(lost) + " readings dropped"), 0U)
        << events[0].detail;

    samples.clear();
    events.clear();
    s.drain(samples, events);
    EXPECT_TRUE(events.empty()) << "said once";
}

// A sensor's records arrive together: what fits of them is queued in order, the rest is
// counted, and a drain makes room for the next ones whole.
TEST(SamplerQueue, ASpanThatFitsInPartIsQueuedAsFarAsItFits) {
    SampleQueue q{5};
    const auto records = [](std::int32_t first, std::int32_t n) {
        std::vector<trace::SampleRecord> out;
        for (std::int32_t i = 0; i < n; ++i) {
            out.push_back({first + i, 0, first + i, 1.0 * (first + i)});
        }
        return out;
    };
    q.push(records(0, 3));
    q.push(records(3, 3)); // two of them fit
    q.push(records(6, 2)); // none fits
    EXPECT_EQ(q.dropped(), 3U);
    std::vector<trace::SampleRecord> out;
    q.drain(out);
    ASSERT_EQ(out.size(), 5U);
    for (std::int32_t i = 0; i < 5; ++i) {
        EXPECT_EQ(out[static_cast<std::size_t>(i)].channel, i);
    }
    q.push(records(8, 5)); // the whole room again
    q.push({});
    out.clear();
    q.drain(out);
    EXPECT_EQ(out.size(), 5U);
    EXPECT_EQ(out.front().channel, 8);
    EXPECT_EQ(q.dropped(), 3U);
}

} // namespace
} // namespace jp
