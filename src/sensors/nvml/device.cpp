// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/nvml/device.hpp"

#include "sensors/vendor_library.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <fmt/format.h>

namespace jp::sensors::nvml {
namespace {

constexpr Return k_function_not_found = 13; // NVML's own code for an absent entry point
constexpr Return k_unknown = 999;

using Attempt = PowerAttempt<PowerSource>;

// Tried in order at discovery; the first that succeeds is used for the whole run.
constexpr std::array k_attempts{
    Attempt{PowerSource::energy_counter, "nvmlDeviceGetTotalEnergyConsumption"},
    Attempt{PowerSource::instant_field, "NVML_FI_DEV_POWER_INSTANT"},
    Attempt{PowerSource::power_usage, "nvmlDeviceGetPowerUsage"},
};

// The number in an nvmlValue_t, by the type NVML says it wrote; nullopt for unknown types.
std::optional<double> field_number(const FieldValue& v) noexcept {
    switch (v.value_type) {
    case ValueType::f64:
        return v.value.d;
    case ValueType::u32:
        return static_cast<double>(v.value.ui);
    case ValueType::ulong:
        return static_cast<double>(v.value.ul);
    case ValueType::u64:
        return static_cast<double>(v.value.ull);
    case ValueType::i64:
        return static_cast<double>(v.value.sll);
    case ValueType::i32:
        return static_cast<double>(v.value.si);
    case ValueType::u16:
        return static_cast<double>(v.value.us);
    }
    return std::nullopt;
}

Return instant_watts(const Api& api, Device device, double& watts) noexcept {
    if (api.get_field_values == nullptr) {
        return k_function_not_found;
    }
    FieldValue v{};
    v.field_id = k_field_power_instant;
    v.scope_id = k_scope_gpu;
    if (const Return r = api.get_field_values(device, 1, &v); r != k_success) {
        return r;
    }
    if (v.nvml_return != k_success) {
        return v.nvml_return; // the call succeeds when any field was filled: check each
    }
    const auto mw = field_number(v);
    if (!mw) {
        return k_unknown;
    }
    watts = *mw * 1e-3;
    return k_success;
}

// Joules (energy_counter) or watts into `out`, as NVML's raw return.
Return call_power(const Api& api, Device device, PowerSource source, double& out) noexcept {
    switch (source) {
    case PowerSource::energy_counter: {
        if (api.get_total_energy == nullptr) {
            return k_function_not_found;
        }
        unsigned long long mj = 0;
        const Return r = api.get_total_energy(device, &mj);
        out = static_cast<double>(mj) * 1e-3;
        return r;
    }
    case PowerSource::instant_field:
        return instant_watts(api, device, out);
    case PowerSource::power_usage: {
        unsigned int mw = 0;
        const Return r = api.get_power_usage(device, &mw);
        out = static_cast<double>(mw) * 1e-3;
        return r;
    }
    case PowerSource::none:
        break;
    }
    return k_not_supported;
}

std::string device_name(const Api& api, Device device) {
    std::array<char, 96> buf{}; // NVML_DEVICE_NAME_V2_BUFFER_SIZE
    if (api.get_name(device, buf.data(), static_cast<unsigned int>(buf.size())) != k_success) {
        return "NVIDIA GPU";
    }
    return {buf.data(), ::strnlen(buf.data(), buf.size())};
}

std::string_view c_text(const auto& buf) {
    return {buf.data(), ::strnlen(buf.data(), buf.size())};
}

// "pci:0000:3b:00.0", or "" (no de-duplication against hwmon) when NVML cannot tell.
std::string pci_identity(const Api& api,
                         Device device,
                         const std::string& gpu,
                         std::vector<std::string>& notes) {
    PciInfo pci{};
    if (const Return r = api.get_pci_info(device, &pci); r != k_success) {
        notes.push_back(fmt::format("nvml: {}: nvmlDeviceGetPciInfo_v3: {}", gpu, return_text(r)));
        return {};
    }
    auto id = normalize_bus_id(c_text(pci.bus_id));
    if (!id) {
        id = normalize_bus_id(c_text(pci.bus_id_legacy));
    }
    if (!id) {
        id = fmt::format("{:04x}:{:02x}:{:02x}.0", pci.domain, pci.bus, pci.device);
    }
    return "pci:" + *id;
}

// The first power source that answers; the ones that did not are listed in `failed`.
PowerSource probe_power(const Api& api,
                        Device device,
                        const std::string& gpu,
                        std::string& failed,
                        std::vector<std::string>& notes) {
    const auto try_one = [&](PowerSource source) -> std::optional<std::string> {
        double value = 0;
        const Return r = call_power(api, device, source, value);
        return r == k_success ? std::nullopt : std::optional{return_text(r)};
    };
    const auto source = choose_power_source(
        k_attempts, try_one, [](PowerSource) { return ""; }, Library::backend, gpu, failed, notes);
    if (source == PowerSource::instant_field) {
        notes.push_back(fmt::format(
            "nvml: {}: the instant power field averages about 25-35 ms of each 100 ms on the A100, "
            "H100 and H200 (docs/gpu-check.md): a load that changes faster than that is "
            "measured part-time (a pulse train's energy came out 7 % low on an H100, 15 % on an "
            "H200)",
            gpu));
    }
    if (source == PowerSource::power_usage) {
        notes.push_back(fmt::format("nvml: {}: nvmlDeviceGetPowerUsage is a 1 s average on "
                                    "Ampere (except GA100) and newer GPUs",
                                    gpu));
    }
    return source;
}

std::optional<double> enforced_limit_watts(const Api& api, Device device) {
    unsigned int mw = 0;
    if (api.get_enforced_limit == nullptr || api.get_enforced_limit(device, &mw) != k_success) {
        return std::nullopt;
    }
    return static_cast<double>(mw) * 1e-3;
}

bool probe_utilization(const Api& api,
                       Device device,
                       const std::string& gpu,
                       std::vector<std::string>& notes) {
    Utilization util{};
    const Return r =
        api.get_utilization == nullptr ? k_function_not_found : api.get_utilization(device, &util);
    if (r != k_success) {
        notes.push_back(fmt::format("nvml: {}: no utilization: nvmlDeviceGetUtilizationRates: {}",
                                    gpu, return_text(r)));
    }
    return r == k_success;
}

bool parse_hex(std::string_view text, unsigned int& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, 16);
    return ec == std::errc{} && end == text.data() + text.size() && !text.empty();
}

} // namespace

std::optional<std::string> normalize_bus_id(std::string_view bus_id) {
    const auto c1 = bus_id.find(':');
    const auto c2 = bus_id.find(':', c1 == std::string_view::npos ? c1 : c1 + 1);
    const auto dot = bus_id.find('.', c2 == std::string_view::npos ? c2 : c2 + 1);
    if (dot == std::string_view::npos) {
        return std::nullopt;
    }
    unsigned int domain = 0;
    unsigned int bus = 0;
    unsigned int dev = 0;
    unsigned int fn = 0;
    if (!parse_hex(bus_id.substr(0, c1), domain) ||
        !parse_hex(bus_id.substr(c1 + 1, c2 - c1 - 1), bus) ||
        !parse_hex(bus_id.substr(c2 + 1, dot - c2 - 1), dev) ||
        !parse_hex(bus_id.substr(dot + 1), fn) || bus > 0xff || dev > 0x1f || fn > 7) {
        return std::nullopt;
    }
    return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, dev, fn);
}

constexpr std::int64_t k_update_ns = 100'000'000;
constexpr std::int64_t k_usage_window_ns = 1'000'000'000;

namespace {

// The NVML call or field a power source reads, as k_attempts names it.
std::string_view call_of(PowerSource source) {
    const auto* it = std::ranges::find(k_attempts, source, &Attempt::source);
    return it != k_attempts.end() ? it->call : std::string_view{};
}

// Whether a power source answers now.
bool answers(const Api& api, Device device, PowerSource source, std::string& failed) {
    double watts = 0;
    const Return r = call_power(api, device, source, watts);
    if (r != k_success) {
        failed +=
            fmt::format("{}{}: {}", failed.empty() ? "" : "; ", call_of(source), return_text(r));
    }
    return r == k_success;
}

// "gpuN.power": the readings that profile counter `counter` between anchors; or, with
// `profile` false, "gpuN.instant": the instant field beside it, for 100 ms peaks.
Channel power_channel(const Channel& counter, PowerSource source, bool profile) {
    Channel c = counter;
    c.name += profile ? ".power" : ".instant";
    c.quantity = Quantity::power;
    c.counted = false; // the counter is the energy: never summed twice
    c.parent = counter.name;
    c.profile_of = profile ? counter.name : "";
    c.source += fmt::format(" ({})", call_of(source));
    c.averaging_ns.reset();
    if (source == PowerSource::power_usage) {
        c.averaging_ns = k_usage_window_ns;
    }
    return c;
}

// Beside an anchored energy counter: the profile between anchors and the instant field.
// The profile is nvmlDeviceGetPowerUsage, a 1 s mean: it sees all the energy but blurs a step
// over its second. The instant field ("gpuN.instant", within the counter) follows a step
// within 100 ms but sees ~25-35 ms of each 100 ms. Reports take the level from the first and
// the detail from the second (report/field_shape.hpp; measured on a real H100 and H200:
// src/sensors/nvml/README.md). The instant field is the profile alone only where
// nvmlDeviceGetPowerUsage does not answer. Neither: the counter at the interval, said.
void add_fields(const Api& api, Gpu& gpu, std::string& no_field) {
    const Channel& counter = gpu.channels.front();
    std::string failed;
    const bool usage = answers(api, gpu.handle, PowerSource::power_usage, failed);
    const bool instant = answers(api, gpu.handle, PowerSource::instant_field, failed);
    if (!usage && !instant) {
        no_field = failed;
        return;
    }
    gpu.field = usage ? PowerSource::power_usage : PowerSource::instant_field;
    if (usage) {
        // The counter's power between anchors is that 1 s mean's, scaled: no finer.
        gpu.channels.front().averaging_ns = k_usage_window_ns;
    }
    std::vector<Channel> added{power_channel(counter, gpu.field, true)};
    if (usage && instant) {
        added.push_back(power_channel(counter, PowerSource::instant_field, false));
    }
    for (auto& c : added) {
        c.update_ns = k_update_ns;
    }
    gpu.channels.insert(gpu.channels.begin() + 1, added.begin(), added.end());
}

} // namespace

Result<Gpu>
probe_gpu(const Api& api, unsigned int index, bool anchored, std::vector<std::string>& notes) {
    Gpu gpu;
    gpu.index = index;
    if (const Return r = api.get_handle(index, &gpu.handle); r != k_success) {
        return fail(r == k_no_permission ? ErrorKind::permission : ErrorKind::library,
                    "nvmlDeviceGetHandleByIndex_v2", return_text(r));
    }
    Channel c = gpu_identity(Library::backend, index, device_name(api, gpu.handle));
    c.device = pci_identity(api, gpu.handle, c.name, notes);
    gpu.power = probe_power(api, gpu.handle, c.name, gpu.no_power, notes);
    gpu.utilization = probe_utilization(api, gpu.handle, c.name, notes);
    gpu.channels = gpu_channels(std::move(c), gpu.power, gpu.utilization, [&] {
        return enforced_limit_watts(api, gpu.handle); // no wrap: 64-bit mJ
    });
    // Measured on an H100 and an H200 (docs/gpu-check.md): the counter and every power
    // field change every 100 ms, and nvmlDeviceGetPowerUsage is a mean over about a second.
    // Said, so that a report of readings taken every 100 ms (the default) knows that a
    // reading can be an update old and draws no 100 ms peaks from two updates in one span.
    for (auto& ch : gpu.channels) {
        if (ch.quantity == Quantity::energy || ch.quantity == Quantity::power) {
            ch.update_ns = k_update_ns;
            if (gpu.power == PowerSource::power_usage) {
                ch.averaging_ns = k_usage_window_ns;
            }
        }
    }
    if (anchored && gpu.power == PowerSource::energy_counter) {
        add_fields(api, gpu, gpu.no_field);
    }
    return gpu;
}

Value read_power(const Api& api, Device device, PowerSource source) noexcept {
    double value = 0;
    const Return r = call_power(api, device, source, value);
    return {value, classify(r)};
}

Value read_utilization(const Api& api, Device device) noexcept {
    Utilization util{};
    if (api.get_utilization == nullptr) {
        return {0, ReadStatus::fatal};
    }
    const Return r = api.get_utilization(device, &util);
    return {static_cast<double>(util.gpu), classify(r)};
}

} // namespace jp::sensors::nvml
