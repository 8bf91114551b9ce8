// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/rocm_smi/device.hpp"

#include "sensors/vendor_library.hpp"

#include <array>
#include <cstring>
#include <fmt/format.h>
#include <optional>
#include <string_view>

namespace jp::sensors::rocm_smi {
namespace {

constexpr Status k_symbol_absent = 0xfffffffeU; // ours, for a null entry point; never ROCm's
constexpr PowerType k_current_power = 1;

using Attempt = PowerAttempt<PowerSource>;

// Tried in order at discovery; the first that succeeds is used for the whole run.
constexpr std::array k_attempts{
    Attempt{PowerSource::energy_counter, "rsmi_dev_energy_count_get"},
    Attempt{PowerSource::power, "rsmi_dev_power_get"},
    Attempt{PowerSource::power_average, "rsmi_dev_power_ave_get"},
};

Status energy_joules(const Api& api, std::uint32_t index, double& joules) noexcept {
    if (api.energy_count == nullptr) {
        return k_symbol_absent;
    }
    std::uint64_t raw = 0;
    float resolution_uj = 0; // µJ per count, e.g. 15.3
    std::uint64_t timestamp_ns = 0;
    const Status s = api.energy_count(index, &raw, &resolution_uj, &timestamp_ns);
    joules = static_cast<double>(raw) * static_cast<double>(resolution_uj) * 1e-6;
    return s;
}

// Joules (energy_counter) or watts into `out`, as ROCm SMI's raw status.
Status call_power(const Api& api, std::uint32_t index, PowerSource source, double& out) noexcept {
    std::uint64_t uw = 0;
    Status s = k_not_supported;
    switch (source) {
    case PowerSource::energy_counter:
        return energy_joules(api, index, out);
    case PowerSource::power: {
        PowerType type = 0;
        s = api.power == nullptr ? k_symbol_absent : api.power(index, &uw, &type);
        break;
    }
    case PowerSource::power_average:
        s = api.power_ave == nullptr ? k_symbol_absent : api.power_ave(index, 0, &uw);
        break;
    case PowerSource::none:
        break;
    }
    out = static_cast<double>(uw) * 1e-6;
    return s;
}

std::string device_name(const Api& api, std::uint32_t index) {
    std::array<char, 256> buf{};
    if (api.name == nullptr || api.name(index, buf.data(), buf.size()) != k_success) {
        return "AMD GPU";
    }
    return {buf.data(), ::strnlen(buf.data(), buf.size())};
}

// "pci:0000:03:00.0", or "" (no de-duplication against hwmon) when ROCm SMI cannot tell.
std::string pci_identity(const Api& api,
                         std::uint32_t index,
                         const std::string& gpu,
                         std::vector<std::string>& notes) {
    std::uint64_t bdfid = 0;
    if (const Status s = api.pci_id(index, &bdfid); s != k_success) {
        notes.push_back(fmt::format("rocm_smi: {}: rsmi_dev_pci_id_get: {}", gpu, status_text(s)));
        return {};
    }
    return "pci:" + format_bdfid(bdfid);
}

std::string power_note(const Api& api, std::uint32_t index, PowerSource source) {
    if (source == PowerSource::power_average) {
        return "an average kept by the SMU";
    }
    std::uint64_t uw = 0;
    PowerType type = 0;
    if (source == PowerSource::power && api.power(index, &uw, &type) == k_success) {
        return type == k_current_power ? "current socket power" : "an average kept by the SMU";
    }
    return "";
}

std::string outcome(Status s) {
    return s == k_symbol_absent ? "absent from the library" : status_text(s);
}

// The first power source that answers; the ones that did not are listed in `failed`.
PowerSource probe_power(const Api& api,
                        std::uint32_t index,
                        const std::string& gpu,
                        std::string& failed,
                        std::vector<std::string>& notes) {
    const auto try_one = [&](PowerSource source) -> std::optional<std::string> {
        double value = 0;
        const Status s = call_power(api, index, source, value);
        return s == k_success ? std::nullopt : std::optional{outcome(s)};
    };
    const auto aside = [&](PowerSource source) {
        return fmt::format(" ({})", power_note(api, index, source));
    };
    return choose_power_source(k_attempts, try_one, aside, Library::backend, gpu, failed, notes);
}

bool probe_utilization(const Api& api,
                       std::uint32_t index,
                       const std::string& gpu,
                       std::vector<std::string>& notes) {
    std::uint32_t busy = 0;
    const Status s = api.busy_percent == nullptr ? k_symbol_absent : api.busy_percent(index, &busy);
    if (s != k_success) {
        notes.push_back(fmt::format("rocm_smi: {}: no utilization: rsmi_dev_busy_percent_get: {}",
                                    gpu, outcome(s)));
    }
    return s == k_success;
}

std::optional<double> power_cap_watts(const Api& api, std::uint32_t index) {
    std::uint64_t uw = 0;
    if (api.power_cap == nullptr || api.power_cap(index, 0, &uw) != k_success) {
        return std::nullopt;
    }
    return static_cast<double>(uw) * 1e-6;
}

} // namespace

std::string format_bdfid(std::uint64_t bdfid) {
    const auto domain = (bdfid >> 32) & 0xffffffffU;
    const auto bus = (bdfid >> 8) & 0xffU;
    const auto device = (bdfid >> 3) & 0x1fU;
    const auto function = bdfid & 0x7U;
    return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
}

Gpu probe_gpu(const Api& api, std::uint32_t index, std::vector<std::string>& notes) {
    Gpu gpu;
    gpu.index = index;
    Channel c = gpu_identity(Library::backend, index, device_name(api, index));
    c.device = pci_identity(api, index, c.name, notes);
    gpu.power = probe_power(api, index, c.name, gpu.no_power, notes);
    gpu.utilization = probe_utilization(api, index, c.name, notes);
    gpu.channels = gpu_channels(std::move(c), gpu.power, gpu.utilization,
                                [&] { return power_cap_watts(api, index); });
    return gpu;
}

Value read_power(const Api& api, std::uint32_t index, PowerSource source) noexcept {
    double value = 0;
    const Status s = call_power(api, index, source, value);
    return {value, classify(s)};
}

Value read_utilization(const Api& api, std::uint32_t index) noexcept {
    std::uint32_t busy = 0;
    if (api.busy_percent == nullptr) {
        return {0, ReadStatus::fatal};
    }
    const Status s = api.busy_percent(index, &busy);
    return {static_cast<double>(busy), classify(s)};
}

} // namespace jp::sensors::rocm_smi
