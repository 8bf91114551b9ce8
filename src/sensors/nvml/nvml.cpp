#include "sensors/nvml/nvml.hpp"

#include "sensors/nvml/api.hpp"
#include "sensors/nvml/device.hpp"

#include <fmt/format.h>

namespace jp::sensors::nvml {
namespace {

// One GPU: its energy (or power) channel and its utilisation channel. All GPUs share one
// Session, so NVML is shut down when the last of them is destroyed.
class NvmlSensor final : public Sensor {
public:
    NvmlSensor(std::shared_ptr<const Session> session, Gpu gpu)
        : m_session(std::move(session)), m_gpu(std::move(gpu)) {}

    std::string_view backend() const noexcept override { return "nvml"; }
    std::span<const Channel> channels() const noexcept override { return m_gpu.channels; }

    // A lost GPU (GPU_IS_LOST, GPU_NOT_FOUND, NOT_FOUND) stays gone: NVML needs a driver
    // reload or reset to bring it back, and its handle is stale by then.
    void read(std::span<Value> out) noexcept override {
        for (std::size_t i = 0; i < m_gpu.channels.size(); ++i) {
            if (m_gone) {
                out[i] = {0, ReadStatus::gone};
                continue;
            }
            out[i] = read_one(m_gpu.channels[i].quantity);
            m_gone = out[i].status == ReadStatus::gone;
        }
    }

private:
    Value read_one(Quantity q) const noexcept {
        const auto& api = m_session->api();
        if (q == Quantity::utilization) {
            return read_utilization(api, m_gpu.handle);
        }
        return read_power(api, m_gpu.handle, m_gpu.power);
    }

    std::shared_ptr<const Session> m_session;
    Gpu m_gpu;
    bool m_gone = false;
};

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
        out.sensors.push_back(std::make_unique<NvmlSensor>(session, std::move(*gpu)));
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
    unsigned int count = 0;
    if (const Return r = (*session)->api().get_count(&count); r != k_success) {
        out.notes.push_back(fmt::format("nvml: nvmlDeviceGetCount_v2: {}", return_text(r)));
        return out;
    }
    if (count == 0) {
        out.notes.push_back("nvml: the driver reports no NVIDIA GPUs");
    }
    for (unsigned int i = 0; i < count; ++i) {
        add_gpu(*session, i, out);
    }
    return out;
}

} // namespace jp::sensors::nvml
