// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/estimate/cpu_sensor.hpp"

#include "config/config.hpp"
#include "sensors/estimate/cpu_models.hpp"
#include "sensors/estimate/power_model.hpp"
#include "sensors/estimate/proc_stat.hpp"
#include "sys/file.hpp"

#include <array>
#include <cerrno>
#include <fmt/format.h>

namespace jp::sensors::estimate {
namespace {

// /proc/stat ticks at USER_HZ (100 Hz): a shorter interval sees no new tick.
constexpr std::chrono::milliseconds k_tick{10};
// The aggregate line is at most "cpu " plus ten 20-digit numbers (about 215 bytes).
constexpr std::size_t k_stat_buffer = 512;

// Power from the busy fraction of /proc/stat ticks since the previous read (the first
// read: since discovery). Reads into a fixed buffer: no allocation after discovery.
class CpuSensor final : public Sensor {
public:
    CpuSensor(Channel channel, sys::PolledFile stat, CpuTimes baseline, CpuPowerModel model)
        : m_channel(std::move(channel)), m_stat(std::move(stat)), m_last(baseline),
          m_model(std::move(model)),
          // Until a tick passes, the best guess is the average since boot.
          m_busy(busy_fraction(CpuTimes{}, baseline).value_or(0.0)) {}

    std::string_view backend() const noexcept override { return "estimate"; }
    std::span<const Channel> channels() const noexcept override { return {&m_channel, 1}; }
    Nanos min_interval() const noexcept override { return k_tick; }

    void read(std::span<Value> out) noexcept override { out[0] = sample(); }

private:
    Value sample() noexcept {
        auto text = m_stat.read(m_buf);
        if (!text) {
            const bool denied = text.error() == EACCES || text.error() == EPERM;
            return {0, denied ? ReadStatus::fatal : ReadStatus::retry};
        }
        const auto now = parse_cpu_line(*text);
        if (!now) {
            return {0, ReadStatus::retry}; // truncated or malformed line
        }
        if (now->busy_ticks < m_last.busy_ticks || now->total_ticks < m_last.total_ticks) {
            m_last = *now; // a CPU went offline and took its ticks out of the sum
            return {0, ReadStatus::retry};
        }
        if (auto busy = busy_fraction(m_last, *now)) {
            m_busy = *busy;
            m_last = *now;
        } // else no tick since the last read: keep the last figure and the old baseline
        return {m_model.watts(m_busy), ReadStatus::ok};
    }

    Channel m_channel;
    sys::PolledFile m_stat;
    CpuTimes m_last;
    CpuPowerModel m_model;
    double m_busy = 0;
    std::array<char, k_stat_buffer> m_buf{};
};

Channel cpu_channel(const CpuPowerModel& model) {
    Channel c;
    c.name = "cpu.estimate";
    c.domain = Domain::cpu_package;
    c.quantity = Quantity::power;
    c.provenance = Provenance::estimated;
    c.backend = "estimate";
    c.source = model.source;
    c.limit_watts = model.max_watts();
    c.mean_since_previous = true; // utilisation of the ticks since the previous read
    return c;
}

struct StatSnapshot {
    CpuTimes times;
    int cpu_lines = 0;
};

std::optional<StatSnapshot> read_snapshot(const std::filesystem::path& path,
                                          std::vector<std::string>& notes) {
    auto text = sys::read_text(path);
    if (!text) {
        notes.push_back(fmt::format("estimate: {}; no CPU estimate", text.error().message()));
        return std::nullopt;
    }
    const auto times = parse_cpu_line(*text);
    if (!times) {
        notes.push_back(fmt::format(
            "estimate: {}: no valid aggregate \"cpu\" line; no CPU estimate", path.string()));
        return std::nullopt;
    }
    return StatSnapshot{*times, count_cpu_lines(*text)};
}

std::string generic_note(const CpuPowerModel& model) {
    return fmt::format("estimate: CPU model '{}' is not in the model table: using the generic "
                       "{:g} W per logical CPU at full load; set [node] cpu_model, or "
                       "cpu_tdp_watts and cpu_threads_per_socket, in the config for a better "
                       "estimate (docs/cpu-models.md)",
                       model.detected.empty() ? "unknown" : model.detected,
                       k_generic_watts_per_thread);
}

} // namespace

std::unique_ptr<Sensor> discover_cpu(const Host& host, std::vector<std::string>& notes) {
    const auto path = sys::under_root(host.sysfs_root, "/proc/stat");
    const auto snapshot = read_snapshot(path, notes);
    if (!snapshot) {
        return nullptr;
    }
    const auto facts = read_cpu_facts(host.sysfs_root, notes);
    const int visible = snapshot->cpu_lines > 0 ? snapshot->cpu_lines : facts.processors;
    auto file = sys::PolledFile::open(path);
    if (visible <= 0 || !file) {
        notes.push_back(fmt::format("estimate: {}: no CPUs listed or not readable; no CPU estimate",
                                    path.string()));
        return nullptr;
    }
    const NodeModel* overrides = host.config != nullptr ? &host.config->node : nullptr;
    auto model = resolve_cpu_model(facts, visible, overrides, notes);
    if (model.generic) {
        notes.push_back(generic_note(model));
    }
    auto channel = cpu_channel(model);
    return std::make_unique<CpuSensor>(std::move(channel), std::move(*file), snapshot->times,
                                       std::move(model));
}

} // namespace jp::sensors::estimate
