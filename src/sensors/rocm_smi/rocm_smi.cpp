// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/rocm_smi/rocm_smi.hpp"

#include "sensors/gpu_sensor.hpp"
#include "sensors/rocm_smi/api.hpp"
#include "sensors/rocm_smi/device.hpp"
#include "sensors/vendor_library.hpp"

#include <fmt/format.h>

namespace jp::sensors::rocm_smi {
namespace {

Value read_one(const Session& session, const Gpu& gpu, const Channel& c) noexcept {
    const Quantity q = c.quantity;
    if (q == Quantity::utilization) {
        return read_utilization(session.api(), gpu.index);
    }
    return read_power(session.api(), gpu.index, gpu.power);
}

void add_gpu(const std::shared_ptr<const Session>& session, unsigned int index, Discovery& out) {
    auto gpu = probe_gpu(session->api(), index, out.notes);
    if (gpu.power == PowerSource::none) {
        out.unreadable.emplace_back("rocm_smi", fmt::format("AMD GPU {}", index),
                                    "no power reading: " + gpu.no_power,
                                    "ROCm SMI reads the amdgpu files under "
                                    "/sys/class/drm/card*/device: check they are readable");
    }
    if (!gpu.channels.empty()) {
        out.sensors.push_back(std::make_unique<VendorGpuSensor<Session, Gpu>>(
            Library::backend, session, std::move(gpu), read_one));
    }
}

} // namespace

Discovery discover(const Host& host) {
    return discover_gpus<Library>(host, add_gpu);
}

} // namespace jp::sensors::rocm_smi
