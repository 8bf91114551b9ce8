// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/estimate/dram_sensor.hpp"

#include "config/config.hpp"
#include "sys/file.hpp"

#include <cmath>
#include <fmt/format.h>

namespace jp::sensors::estimate {
namespace {

constexpr double k_kib_per_gib = 1024.0 * 1024.0;

// A constant: installed memory draws about the same whatever the job does (the
// refresh and background power dominate a DIMM's draw at typical loads).
class DramSensor final : public Sensor {
public:
    DramSensor(Channel channel, double watts) : m_channel(std::move(channel)), m_watts(watts) {}

    std::string_view backend() const noexcept override { return "estimate"; }
    std::span<const Channel> channels() const noexcept override { return {&m_channel, 1}; }
    void read(std::span<Value> out) noexcept override { out[0] = {m_watts, ReadStatus::ok}; }

private:
    Channel m_channel;
    double m_watts;
};

struct Rate {
    double watts_per_gib = k_default_dram_watts_per_gib;
    std::string origin = "default: ~3 W per 8 GB DIMM";
};

Rate dram_rate(const Host& host, std::vector<std::string>& notes) {
    if (host.config == nullptr || !host.config->node.dram_watts_per_gib) {
        return {};
    }
    const double v = *host.config->node.dram_watts_per_gib;
    if (!std::isfinite(v) || v < 0) {
        notes.push_back(fmt::format("estimate: config [node] dram_watts_per_gib = {} ignored "
                                    "(must be >= 0)",
                                    v));
        return {};
    }
    return {v, "config"};
}

Channel dram_channel(double gib, const Rate& rate) {
    Channel c;
    c.name = "dram.estimate";
    c.domain = Domain::dram;
    c.quantity = Quantity::power;
    c.provenance = Provenance::estimated;
    c.backend = "estimate";
    c.source = fmt::format("model: MemTotal {:.1f} GiB x {:g} W/GiB ({}), constant", gib,
                           rate.watts_per_gib, rate.origin);
    return c;
}

} // namespace

std::optional<std::uint64_t> parse_mem_total_kib(std::string_view meminfo) {
    constexpr std::string_view key = "MemTotal:";
    std::size_t pos = 0;
    while (pos < meminfo.size() && !meminfo.substr(pos).starts_with(key)) {
        const auto eol = meminfo.find('\n', pos);
        pos = eol == std::string_view::npos ? meminfo.size() : eol + 1;
    }
    if (pos >= meminfo.size()) {
        return std::nullopt;
    }
    auto line = meminfo.substr(pos + key.size());
    line = line.substr(0, line.find('\n'));
    line = sys::trim(line);
    if (!line.ends_with(" kB")) {
        return std::nullopt;
    }
    line.remove_suffix(3);
    auto kib = sys::parse_u64(line);
    return kib ? std::optional{*kib} : std::nullopt;
}

std::unique_ptr<Sensor> discover_dram(const Host& host, std::vector<std::string>& notes) {
    const auto path = sys::under_root(host.sysfs_root, "/proc/meminfo");
    auto text = sys::read_text(path);
    if (!text) {
        notes.push_back(fmt::format("estimate: {}; no DRAM estimate", text.error().message()));
        return nullptr;
    }
    const auto kib = parse_mem_total_kib(*text);
    if (!kib) {
        notes.push_back(
            fmt::format("estimate: {}: no valid MemTotal line; no DRAM estimate", path.string()));
        return nullptr;
    }
    const double gib = static_cast<double>(*kib) / k_kib_per_gib;
    const Rate rate = dram_rate(host, notes);
    return std::make_unique<DramSensor>(dram_channel(gib, rate), gib * rate.watts_per_gib);
}

} // namespace jp::sensors::estimate
