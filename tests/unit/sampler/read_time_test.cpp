// SPDX-License-Identifier: BSD-3-Clause
// The sampler keeps each channel's longest read call of the run: a source whose read
// spins ~4 ms (an H100's energy read) is recorded at 4 ms or more; a source that stamps its
// own values (a daemon's readings) is recorded at the call length it states with them (the
// daemon's own), never at ours, as its values' times do not depend on our call.
#include "core/clock.hpp"
#include "sampler/sampler.hpp"

#include <gtest/gtest.h>
#include <memory>
#include <thread>
#include <vector>

namespace jp {
namespace {

using sensors::ReadStatus;
using sensors::Value;

constexpr std::int64_t k_call_ns = 4'000'000;

class TimedSource final : public sensors::Sensor {
public:
    TimedSource(std::string name, bool own_times, std::int64_t stated_call_ns = 0)
        : m_own_times(own_times), m_stated_call_ns(stated_call_ns) {
        m_ch.name = std::move(name);
        m_ch.domain = Domain::gpu;
        m_ch.quantity = Quantity::energy;
        m_ch.backend = "fake";
    }
    std::string_view backend() const noexcept override { return "fake"; }
    std::span<const Channel> channels() const noexcept override { return {&m_ch, 1}; }
    bool slow() const noexcept override { return true; }
    bool read_at_edges() const noexcept override { return true; }
    Nanos min_interval() const noexcept override { return std::chrono::milliseconds{20}; }
    void read(std::span<Value> out) noexcept override {
        const auto start = mono_ns();
        while (mono_ns() - start < m_call_ns) { // spins, as the driver does
        }
        m_joules += 1;
        out[0] = {m_joules, ReadStatus::ok, m_own_times ? start : 0};
        out[0].call_ns = m_stated_call_ns;
    }
    // Between runs only (the sampler's threads stopped).
    void set_call(std::int64_t ns) noexcept { m_call_ns = ns; }

private:
    Channel m_ch;
    bool m_own_times;
    std::int64_t m_stated_call_ns;
    std::int64_t m_call_ns = k_call_ns;
    double m_joules = 0;
};

TEST(SamplerReadTime, TheLongestCallOfEachRunIsKeptWhereTheValueIsStampedAtItsMiddle) {
    std::vector<std::unique_ptr<sensors::Sensor>> sensors;
    sensors.push_back(std::make_unique<TimedSource>("gpu0", false));
    sensors.push_back(std::make_unique<TimedSource>("gpu1", true));
    sensors.push_back(std::make_unique<TimedSource>("gpu2", true, 7'000'000));
    auto* gpu0 = dynamic_cast<TimedSource*>(sensors[0].get());
    std::vector<Channel> table{sensors[0]->channels()[0], sensors[1]->channels()[0],
                               sensors[2]->channels()[0]};
    Sampler s{std::move(sensors), table, SamplerConfig{std::chrono::milliseconds{20}, {}},
              mono_ns()};
    s.begin(1);
    EXPECT_EQ(s.run_id(), 1);
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
    s.end();
    const auto times = s.read_times();
    ASSERT_EQ(times.size(), 3U);
    EXPECT_GE(times[0], k_call_ns);
    EXPECT_EQ(times[1], 0) << "a source's own times do not depend on our call";
    EXPECT_EQ(times[2], 7'000'000) << "the call length the source states, not ours";
    // The next run keeps its own longest call, not the last run's.
    gpu0->set_call(0);
    s.begin(2);
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
    s.end();
    EXPECT_LT(s.read_times()[0], k_call_ns);
}

} // namespace
} // namespace jp
