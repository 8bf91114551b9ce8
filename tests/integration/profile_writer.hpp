// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Drives a fake RAPL energy_uj file from a known power profile, like the
// hardware does (a counter updated every tick, wrapping at its range), so the
// exact energy over any window is known: the ground truth of end-to-end tests.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <thread>

namespace jp::test {

class ProfileWriter {
public:
    // P(t) = base + amp * sin(2π t / period) watts, t = seconds since t0_mono_ns.
    struct Profile {
        double base_w = 150;
        double amp_w = 60;
        double period_s = 1.7;
        double start_j = 0;             // counter value at t0 (in joules)
        double range_j = 4294.967296;   // wraps here (2^32 µJ)
        std::int64_t tick_ns = 200'000; // how often the counter updates (RAPL: ~1 ms)
    };
    ProfileWriter(std::filesystem::path energy_uj, Profile p, std::int64_t t0_mono_ns);
    ProfileWriter(const ProfileWriter&) = delete;
    ProfileWriter& operator=(const ProfileWriter&) = delete;
    ProfileWriter(ProfileWriter&&) = delete;
    ProfileWriter& operator=(ProfileWriter&&) = delete;
    ~ProfileWriter();

    // Exact energy (J) of the profile between two monotonic times.
    [[nodiscard]] double joules_between(std::int64_t a_ns, std::int64_t b_ns) const;
    // The longest the file went without an update so far: on a busy machine the
    // writer stalls, and a reading can be this stale. Tests allow for it.
    [[nodiscard]] std::int64_t max_gap_ns() const noexcept { return m_max_gap.load(); }
    // Joules a reading can be off at each edge through the writer's stalls.
    [[nodiscard]] double stall_joules() const noexcept {
        return (m_p.base_w + m_p.amp_w) * static_cast<double>(max_gap_ns()) * 1e-9;
    }

private:
    [[nodiscard]] double energy_at(std::int64_t t_ns) const; // since t0, unwrapped
    void loop();
    static int open_for_write(const std::filesystem::path& path);
    std::filesystem::path m_path;
    Profile m_p;
    std::int64_t m_t0;
    int m_fd = -1;
    std::atomic<bool> m_stop{false};
    std::atomic<std::int64_t> m_max_gap{0};
    std::thread m_thread;
};

} // namespace jp::test
