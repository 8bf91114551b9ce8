// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The pm_counters read loop: a coherent snapshot of every counter file.
#include "sensors/pm_counters/pm_counters.hpp"
#include "sys/file.hpp"

#include <expected>
#include <vector>

namespace jp::sensors::pm_counters {

// The files that stamp a scan; either may be absent (then it is not compared).
struct StampFiles {
    sys::PolledFile freshness;
    sys::PolledFile generation;
};

class PmCountersSensor final : public Sensor {
public:
    // A snapshot is tried this often before the whole read is reported as retry.
    static constexpr int k_attempts = 4; // the first read and up to 3 retries

    PmCountersSensor(std::vector<Channel> channels,
                     std::vector<sys::PolledFile> counters,
                     StampFiles stamps,
                     Nanos min_interval,
                     ReadHook hook);

    std::string_view backend() const noexcept override { return "pm_counters"; }
    std::span<const Channel> channels() const noexcept override { return m_channels; }
    Nanos min_interval() const noexcept override { return m_min_interval; }
    // Energy in J (1 J resolution). If freshness or generation moved while the
    // counters were read, tries again; after k_attempts torn snapshots every
    // channel is retry. A missing stamp file is gone for all channels.
    void read(std::span<Value> out) noexcept override;

private:
    std::expected<ScanStamp, int> read_stamp() noexcept;
    void read_counters(std::span<Value> out, bool check_presence) noexcept;
    Value read_one(std::size_t i, bool check_presence) noexcept;
    bool check_due() noexcept;

    std::vector<Channel> m_channels;
    std::vector<sys::PolledFile> m_counters;
    StampFiles m_stamps;
    std::vector<bool> m_gone;
    Nanos m_min_interval;
    ReadHook m_hook;
    std::int64_t m_last_check = 0;
};

} // namespace jp::sensors::pm_counters
