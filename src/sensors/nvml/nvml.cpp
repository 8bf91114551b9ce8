// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/nvml/nvml.hpp"

#include "config/config.hpp"
#include "sensors/gpu_sensor.hpp"
#include "sensors/nvml/api.hpp"
#include "sensors/nvml/device.hpp"
#include "sensors/vendor_library.hpp"

#include <fmt/format.h>

namespace jp::sensors::nvml {
namespace {

Value read_one(const Session& session, const Gpu& gpu, Quantity q) noexcept {
    if (q == Quantity::utilization) {
        return read_utilization(session.api(), gpu.handle);
    }
    return read_power(session.api(), gpu.handle, gpu.power);
}

Finding unreadable(unsigned int index, const std::string& reason, bool permission) {
    return Finding{"nvml", fmt::format("NVIDIA GPU {}", index), reason,
                   permission ? "check the permissions of /dev/nvidia* (the nvidia driver's "
                                "NVreg_DeviceFileMode)"
                              : ""};
}

// An H100 (driver 580) changes its energy counter and its power fields every 100 ms and
// spends 3.9 ms of CPU on each energy read (docs/gpu-check.md): reading it every 10 ms
// cost 46 % of a core for no finer figure. Set [sensors.nvml] interval to read faster.
constexpr Nanos k_default_floor{std::chrono::milliseconds{100}};
constexpr std::string_view k_floor_reason =
    "NVML's energy counter changes every 100 ms on an H100 and each read costs milliseconds "
    "of CPU; set [sensors.nvml] interval to read it faster";

GpuPolling polling_for(const Host& host) {
    GpuPolling p{.own_thread = true, .min_interval = k_default_floor, .reason = k_floor_reason};
    if (host.config != nullptr) {
        if (auto it = host.config->intervals.find(Library::backend);
            it != host.config->intervals.end()) {
            p.min_interval = it->second; // asked for: honoured
            p.reason = {};
        }
    }
    return p;
}

void add_gpu(const std::shared_ptr<const Session>& session,
             unsigned int index,
             const GpuPolling& polling,
             Discovery& out) {
    auto gpu = probe_gpu(session->api(), index, out.notes);
    if (!gpu) {
        out.unreadable.push_back(
            unreadable(index, gpu.error().message(), gpu.error().kind == ErrorKind::permission));
        return;
    }
    if (gpu->power == PowerSource::none) {
        out.unreadable.push_back(unreadable(index, "no power reading: " + gpu->no_power, false));
    }
    if (!gpu->channels.empty()) {
        out.sensors.push_back(std::make_unique<VendorGpuSensor<Session, Gpu>>(
            Library::backend, session, std::move(*gpu), read_one, polling));
    }
}

} // namespace

Discovery discover(const Host& host) {
    const auto polling = polling_for(host);
    return discover_gpus<Library>(host, [&](const auto& session, unsigned int index, auto& out) {
        add_gpu(session, index, polling, out);
    });
}

} // namespace jp::sensors::nvml
