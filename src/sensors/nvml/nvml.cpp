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

Value read_one(const Session& session, const Gpu& gpu, const Channel& c) noexcept {
    if (c.quantity == Quantity::utilization) {
        return read_utilization(session.api(), gpu.handle);
    }
    // Beside an anchored counter: "gpuN.power" reads the profile, "gpuN.instant" the
    // instant field; "gpuN" reads the best source.
    PowerSource source = gpu.power;
    if (c.quantity == Quantity::power && gpu.power == PowerSource::energy_counter) {
        source = c.profile_of.empty() ? PowerSource::instant_field : gpu.field;
    }
    return read_power(session.api(), gpu.handle, source);
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

constexpr std::string_view k_field_floor_reason =
    "NVML's power fields change every 100 ms on an H100; set [sensors.nvml] interval to read "
    "them faster";

// Between the job's edges, an anchored GPU's energy counter is read this often (docs/overhead.md:
// 8 GPUs at 3.9 ms per read cost 0.3 % of a core at 10 s, 31 % at 100 ms).
constexpr Nanos k_default_anchor{std::chrono::seconds{10}};

struct Polling {
    GpuPolling whole;   // a GPU read as one sensor: the counter at the interval, or no counter
    GpuPolling counter; // an anchored counter: its own thread, every anchor
    GpuPolling field;   // the field (and utilisation) beside it: the fast thread
    bool anchored = true;
};

Polling polling_for(const Host& host) {
    Polling p;
    p.whole = {.own_thread = true, .min_interval = k_default_floor, .reason = k_floor_reason};
    p.field = {
        .own_thread = false, .min_interval = k_default_floor, .reason = k_field_floor_reason};
    auto anchor = k_default_anchor;
    if (host.config != nullptr) {
        if (auto it = host.config->intervals.find(Library::backend);
            it != host.config->intervals.end()) {
            p.whole.min_interval = it->second; // asked for: honoured
            p.whole.reason = {};
            p.field.min_interval = it->second;
            p.field.reason = {};
        }
        anchor = host.config->nvml_anchor.value_or(anchor);
    }
    p.anchored = anchor.count() > 0;
    p.counter = {.own_thread = true, .min_interval = anchor, .reason = {}};
    return p;
}

// An anchored GPU as two sensors: its counter ("gpuN") on a thread of its own every anchor
// and at the edges, its field and utilisation ("gpuN.power", "gpuN.util") on the fast
// thread at the sampling interval.
void add_anchored(const std::shared_ptr<const Session>& session,
                  Gpu gpu,
                  const Polling& polling,
                  Discovery& out) {
    Gpu counter = gpu;
    counter.channels.resize(1);
    gpu.channels.erase(gpu.channels.begin());
    out.sensors.push_back(std::make_unique<VendorGpuSensor<Session, Gpu>>(
        Library::backend, session, std::move(counter), read_one, polling.counter));
    out.sensors.push_back(std::make_unique<VendorGpuSensor<Session, Gpu>>(
        Library::backend, session, std::move(gpu), read_one, polling.field));
}

void add_gpu(const std::shared_ptr<const Session>& session,
             unsigned int index,
             const Polling& polling,
             Discovery& out) {
    auto gpu = probe_gpu(session->api(), index, polling.anchored, out.notes);
    if (!gpu) {
        out.unreadable.push_back(
            unreadable(index, gpu.error().message(), gpu.error().kind == ErrorKind::permission));
        return;
    }
    if (gpu->power == PowerSource::none) {
        out.unreadable.push_back(unreadable(index, "no power reading: " + gpu->no_power, false));
    }
    if (!gpu->no_field.empty()) {
        out.unreadable.emplace_back(
            "nvml", fmt::format("NVIDIA GPU {}'s power fields", index), gpu->no_field,
            "its energy counter is read at the sampling interval instead of every anchor, "
            "on its own thread: each read costs milliseconds of CPU on an H100",
            gpu->channels.front().name + ".power");
    }
    if (gpu->field != PowerSource::none) {
        add_anchored(session, std::move(*gpu), polling, out);
    } else if (!gpu->channels.empty()) {
        out.sensors.push_back(std::make_unique<VendorGpuSensor<Session, Gpu>>(
            Library::backend, session, std::move(*gpu), read_one, polling.whole));
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
