// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/nvml/nvml.hpp"

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

void add_gpu(const std::shared_ptr<const Session>& session, unsigned int index, Discovery& out) {
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
            Library::backend, session, std::move(*gpu), read_one));
    }
}

} // namespace

Discovery discover(const Host& host) {
    return discover_gpus<Library>(host, add_gpu);
}

} // namespace jp::sensors::nvml
