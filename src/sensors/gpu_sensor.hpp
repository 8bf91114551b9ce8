// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One GPU reached through a vendor library (NVML, ROCm SMI): its power or energy
// channel and its utilisation channel. All GPUs of a library share one Session,
// so the library stays initialised while any of them lives. Once a channel
// reports gone, the whole GPU stays gone: vendor libraries number devices once,
// at init, and a device that comes back may sit behind another index.
#include "sensors/sensor.hpp"

#include <memory>

namespace jp::sensors {

// How the sampler reads a GPU. A library call that costs milliseconds (NVML's energy
// counter: 3.9 ms of CPU per read on an H100, driver 580) gets its own thread, so it
// never delays the fast sensors, and a floor on its interval.
struct GpuPolling {
    bool own_thread = false;                          // Sensor::slow(), still read at edges
    Nanos min_interval{std::chrono::milliseconds{1}}; // Sensor::min_interval()
    std::string_view reason;                          // Sensor::min_interval_reason()
};

template <class Session, class Gpu> class VendorGpuSensor final : public Sensor {
public:
    // Reads one channel of the GPU; never throws.
    using ReadOne = Value (*)(const Session& session, const Gpu& gpu, const Channel& c) noexcept;

    VendorGpuSensor(std::string_view backend,
                    std::shared_ptr<const Session> session,
                    Gpu gpu,
                    ReadOne read_one,
                    GpuPolling polling = {})
        : m_backend(backend), m_session(std::move(session)), m_gpu(std::move(gpu)),
          m_read(read_one), m_polling(polling) {}

    std::string_view backend() const noexcept override { return m_backend; }
    std::span<const Channel> channels() const noexcept override { return m_gpu.channels; }
    bool slow() const noexcept override { return m_polling.own_thread; }
    bool read_at_edges() const noexcept override { return true; }
    Nanos min_interval() const noexcept override { return m_polling.min_interval; }
    std::string_view min_interval_reason() const noexcept override { return m_polling.reason; }

    void read(std::span<Value> out) noexcept override {
        for (std::size_t i = 0; i < m_gpu.channels.size(); ++i) {
            if (m_gone) {
                out[i] = {0, ReadStatus::gone};
                continue;
            }
            out[i] = m_read(*m_session, m_gpu, m_gpu.channels[i]);
            m_gone = out[i].status == ReadStatus::gone;
        }
    }

private:
    std::string_view m_backend;
    std::shared_ptr<const Session> m_session;
    Gpu m_gpu;
    ReadOne m_read;
    GpuPolling m_polling;
    bool m_gone = false;
};

} // namespace jp::sensors
