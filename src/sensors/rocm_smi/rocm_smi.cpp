#include "sensors/rocm_smi/rocm_smi.hpp"

#include "sensors/rocm_smi/api.hpp"
#include "sensors/rocm_smi/device.hpp"

#include <fmt/format.h>

namespace jp::sensors::rocm_smi {
namespace {

// One GPU: its energy (or power) channel and its utilisation channel. All GPUs share one
// Session, so ROCm SMI is shut down when the last of them is destroyed.
class RocmSmiSensor final : public Sensor {
public:
    RocmSmiSensor(std::shared_ptr<const Session> session, Gpu gpu)
        : m_session(std::move(session)), m_gpu(std::move(gpu)) {}

    std::string_view backend() const noexcept override { return "rocm_smi"; }
    std::span<const Channel> channels() const noexcept override { return m_gpu.channels; }

    // A device that went away stays gone: ROCm SMI numbers devices once, at rsmi_init, so a
    // device that comes back may sit behind another index.
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
            return read_utilization(api, m_gpu.index);
        }
        return read_power(api, m_gpu.index, m_gpu.power);
    }

    std::shared_ptr<const Session> m_session;
    Gpu m_gpu;
    bool m_gone = false;
};

void add_gpu(const std::shared_ptr<const Session>& session, std::uint32_t index, Discovery& out) {
    auto gpu = probe_gpu(session->api(), index, out.notes);
    if (gpu.power == PowerSource::none) {
        out.unreadable.push_back(Finding{"rocm_smi", fmt::format("AMD GPU {}", index),
                                         "no power reading: " + gpu.no_power,
                                         "ROCm SMI reads the amdgpu files under "
                                         "/sys/class/drm/card*/device: check they are readable"});
    }
    if (!gpu.channels.empty()) {
        out.sensors.push_back(std::make_unique<RocmSmiSensor>(session, std::move(gpu)));
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
