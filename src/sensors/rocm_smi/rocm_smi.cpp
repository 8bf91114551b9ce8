#include "sensors/rocm_smi/rocm_smi.hpp"

#include "sensors/gpu_sensor.hpp"
#include "sensors/rocm_smi/api.hpp"
#include "sensors/rocm_smi/device.hpp"

#include <fmt/format.h>

namespace jp::sensors::rocm_smi {
namespace {

Value read_one(const Session& session, const Gpu& gpu, Quantity q) noexcept {
    if (q == Quantity::utilization) {
        return read_utilization(session.api(), gpu.index);
    }
    return read_power(session.api(), gpu.index, gpu.power);
}

void add_gpu(const std::shared_ptr<const Session>& session, std::uint32_t index, Discovery& out) {
    auto gpu = probe_gpu(session->api(), index, out.notes);
    if (gpu.power == PowerSource::none) {
        out.unreadable.push_back(Finding{"rocm_smi", fmt::format("AMD GPU {}", index),
                                         "no power reading: " + gpu.no_power,
                                         "ROCm SMI reads the amdgpu files under "
                                         "/sys/class/drm/card*/device: check they are readable"});
    }
    if (!gpu.channels.empty()) {
        out.sensors.push_back(std::make_unique<VendorGpuSensor<Session, Gpu>>(
            "rocm_smi", session, std::move(gpu), read_one));
    }
}

} // namespace

Discovery discover(const Host& host) {
    Discovery out;
    auto session = Session::open(host);
    if (!session) {
        out.notes.push_back(session.error().message());
        return out;
    }
    std::uint32_t count = 0;
    if (const Status s = (*session)->api().num_devices(&count); s != k_success) {
        out.notes.push_back(fmt::format("rocm_smi: rsmi_num_monitor_devices: {}", status_text(s)));
        return out;
    }
    if (count == 0) {
        out.notes.push_back("rocm_smi: ROCm SMI reports no AMD GPUs");
    }
    for (std::uint32_t i = 0; i < count; ++i) {
        add_gpu(*session, i, out);
    }
    return out;
}

} // namespace jp::sensors::rocm_smi
