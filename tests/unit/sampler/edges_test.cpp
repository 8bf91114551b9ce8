// SPDX-License-Identifier: BSD-3-Clause
// A job's edges read every slow source at once: eight GPUs whose energy read spins ~4 ms
// each in the driver cost one read's time at each edge, not eight. Shown without timing:
// each GPU's edge read waits for all the others to be inside theirs too, which can only
// happen when they run at the same time (read one after another, the first gives up).
#include "core/clock.hpp"
#include "sampler/sampler.hpp"

#include <algorithm>
#include <condition_variable>
#include <gtest/gtest.h>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace jp {
namespace {

using sensors::ReadStatus;
using sensors::Value;

// Edge reads of `expected` sources meet here; each waits up to 3 s for all of them.
class Rendezvous {
public:
    explicit Rendezvous(int expected) : m_expected(expected) {}
    bool arrive_and_wait() {
        std::unique_lock lock{m_mutex};
        ++m_arrived;
        m_cv.notify_all();
        return m_cv.wait_for(lock, std::chrono::seconds{3},
                             [&] { return m_arrived % m_expected == 0; });
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    int m_expected;
    int m_arrived = 0;
};

// A GPU on its own thread whose edge read waits at the rendezvous: ok only when every GPU
// was inside its edge read at once.
class MeetingGpu final : public sensors::Sensor {
public:
    MeetingGpu(int index, Rendezvous& r) : m_rendezvous(r) {
        m_ch.name = "gpu" + std::to_string(index);
        m_ch.domain = Domain::gpu;
        m_ch.quantity = Quantity::energy;
        m_ch.backend = "fake";
    }
    std::string_view backend() const noexcept override { return "fake"; }
    std::span<const Channel> channels() const noexcept override { return {&m_ch, 1}; }
    bool slow() const noexcept override { return true; }
    bool read_at_edges() const noexcept override { return true; }
    Nanos min_interval() const noexcept override { return std::chrono::seconds{100}; }
    void read(std::span<Value> out) noexcept override { out[0] = {m_joules, ReadStatus::ok}; }
    void read_edge(std::span<Value> out) noexcept override {
        const bool together = m_rendezvous.arrive_and_wait();
        m_joules += 10;
        out[0] = {m_joules, together ? ReadStatus::ok : ReadStatus::fatal};
    }

private:
    Channel m_ch;
    Rendezvous& m_rendezvous;
    double m_joules = 1000;
};

TEST(SamplerEdges, EveryGpuIsReadAtTheSameTime) {
    constexpr int k_gpus = 8;
    Rendezvous rendezvous{k_gpus};
    std::vector<std::unique_ptr<sensors::Sensor>> sensors;
    std::vector<Channel> table;
    for (int i = 0; i < k_gpus; ++i) {
        sensors.push_back(std::make_unique<MeetingGpu>(i, rendezvous));
        table.push_back(sensors.back()->channels()[0]);
    }
    Sampler s{std::move(sensors), table, SamplerConfig{std::chrono::seconds{100}, {}}, mono_ns()};
    s.begin(1);
    std::vector<trace::SampleRecord> marked;
    s.sample_now(marked); // a phase mark reads the edges too, and hands them back
    s.end();
    std::vector<trace::SampleRecord> samples;
    std::vector<trace::Event> events;
    s.drain(samples, events);
    EXPECT_TRUE(events.empty()) << events.front().detail;
    EXPECT_EQ(samples.size(), 3U * k_gpus) << "start, mark and end of every GPU";
    ASSERT_EQ(marked.size(), static_cast<std::size_t>(k_gpus));
    std::vector<bool> seen(k_gpus);
    for (const auto& r : marked) {
        seen.at(static_cast<std::size_t>(r.channel)) = true;
        EXPECT_EQ(r.flags & trace::k_flag_edge, trace::k_flag_edge);
        EXPECT_DOUBLE_EQ(r.value, 10.0) << "10 J since the start edge";
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), true), k_gpus);
}

} // namespace
} // namespace jp
