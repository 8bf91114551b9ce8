// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/pm_counters/pm_sensor.hpp"

#include "core/clock.hpp"

#include <algorithm>
#include <cerrno>

namespace jp::sensors::pm_counters {
namespace {

constexpr std::int64_t k_presence_check_ns = 1'000'000'000;

ReadStatus status_of(int err) noexcept {
    switch (err) {
    case ENODEV:
    case ENOENT:
    case ENXIO:
        return ReadStatus::gone;
    case EACCES:
    case EPERM:
        return ReadStatus::fatal;
    default:
        return ReadStatus::retry; // EAGAIN, EIO, ENODATA, malformed content
    }
}

// An absent optional stamp reads as 0, so it never differs between reads.
std::expected<std::uint64_t, int> read_optional(sys::PolledFile& f) noexcept {
    return f.is_open() ? f.read_u64() : std::expected<std::uint64_t, int>{0};
}

} // namespace

PmCountersSensor::PmCountersSensor(std::vector<Channel> channels,
                                   std::vector<sys::PolledFile> counters,
                                   StampFiles stamps,
                                   Nanos min_interval,
                                   ReadHook hook)
    : m_channels(std::move(channels)), m_counters(std::move(counters)), m_stamps(std::move(stamps)),
      m_gone(m_channels.size(), false), m_min_interval(min_interval), m_hook(hook) {}

bool PmCountersSensor::check_due() noexcept {
    const auto now = mono_ns();
    if (now - m_last_check < k_presence_check_ns) {
        return false;
    }
    m_last_check = now;
    return true;
}

std::expected<ScanStamp, int> PmCountersSensor::read_stamp() noexcept {
    auto freshness = read_optional(m_stamps.freshness);
    if (!freshness) {
        return std::unexpected(freshness.error());
    }
    auto generation = read_optional(m_stamps.generation);
    if (!generation) {
        return std::unexpected(generation.error());
    }
    return ScanStamp{*freshness, *generation};
}

Value PmCountersSensor::read_one(std::size_t i, bool check_presence) noexcept {
    if (m_gone[i] || (check_presence && !m_counters[i].still_present())) {
        m_gone[i] = true;
        return {0, ReadStatus::gone};
    }
    char buf[96];
    auto text = m_counters[i].read(buf);
    if (!text) {
        const auto status = status_of(text.error());
        m_gone[i] = status == ReadStatus::gone;
        return {0, status};
    }
    auto line = parse_counter(*text, "J");
    if (!line) {
        return {0, ReadStatus::retry};
    }
    return {static_cast<double>(line->value), ReadStatus::ok};
}

void PmCountersSensor::read_counters(std::span<Value> out, bool check_presence) noexcept {
    for (std::size_t i = 0; i < m_counters.size(); ++i) {
        out[i] = read_one(i, check_presence);
    }
}

void PmCountersSensor::read(std::span<Value> out) noexcept {
    const bool check = check_due();
    if (check && m_stamps.freshness.is_open() && !m_stamps.freshness.still_present()) {
        std::ranges::fill(out, Value{0, ReadStatus::gone});
        return;
    }
    for (int attempt = 0; attempt < k_attempts; ++attempt) {
        auto before = read_stamp();
        if (!before) {
            std::ranges::fill(out, Value{0, status_of(before.error())});
            return;
        }
        read_counters(out, check && attempt == 0);
        if (m_hook.run != nullptr) {
            m_hook.run(m_hook.context);
        }
        auto after = read_stamp();
        if (!after) {
            std::ranges::fill(out, Value{0, status_of(after.error())});
            return;
        }
        if (*before == *after) {
            return;
        }
    }
    // The scan kept moving under us: no coherent snapshot this time.
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = Value{0, m_gone[i] ? ReadStatus::gone : ReadStatus::retry};
    }
}

} // namespace jp::sensors::pm_counters
