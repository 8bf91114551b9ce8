// SPDX-License-Identifier: BSD-3-Clause
// A stand-in for libnvidia-ml.so.1 with the same C ABI for the entry points jouleprof uses,
// playing a scripted profile from the text fixture named by JP_FAKE_NVML_FIXTURE. The
// fixture is re-read and the clock restarted on every nvmlInit_v2.
//
// Fixture: the directives of ../common/fake_library.hpp (init_error, gpu, power, util, lost;
// t in seconds since nvmlInit_v2), with these NVML specifics:
//   init_error <code>                   e.g. 9 DRIVER_NOT_LOADED
//   gpu <index> <busId> [model=h100] [energy=yes|no] [instant=yes|no] [usage=yes|no]
//       [instant_type=0..6] [limit_mw=<mW>] [energy_offset_mj=<mJ>]
//       [energy_cost_us=<us>] [update_ms=<ms>] [window_ms=<ms>] [lag_ms=<ms>]
//       [average_ms=<ms>] [name=<rest of the line>]
//   util <index> <percent>              nvmlDeviceGetUtilizationRates (absent: NOT_SUPPORTED)
//   lost <index> <t> [code=15] [until=<t>]
// The energy counter is offset + the exact integral of the profile, floored to whole mJ.
// By default every reading is the profile's at the moment of the call and costs nothing.
// A real GPU is modelled by (docs/gpu-check.md, measured on an H100 and an H200):
//   energy_cost_us  each energy read spins that long on the caller's CPU (H100: ~3,900 us)
//   read_cost_us    so does each power, field and utilisation read (H100: 5-12 us)
//   update_ms       the counter and the power readings change only every update_ms since
//                   init (H100: 100); a read returns the value of the last update
//   window_ms, lag_ms  the instant field (186) is the mean power over
//                   [update - lag - window, update - lag] (H100: 30 and 5: part-time)
//   average_ms      nvmlDeviceGetPowerUsage and the field POWER_AVERAGE (185) are the mean
//                   over [update - average_ms, update] (H100: 1000)
// The compute processes (nvmlDeviceGetComputeRunningProcesses_v3) are read, at each call, from
// the file JP_FAKE_NVML_PROCESSES names: one "<gpu index> <pid>" per line (none without it);
// each listing spins read_cost_us for the call and three times that per process (an H200:
// 7 us with none, 73 us with three). JP_FAKE_NVML_PROCESS_STRIDE=32 writes the 32-byte
// entries of R535 drivers instead of the 24-byte nvmlProcessInfo_t.
// model=h100 sets those figures, a 700 W limit and the H100's name; the line's other options
// override them, wherever they stand. Times and costs are finite and not negative.
// Built twice: with -DJP_FAKE_NVML_OMIT_COUNT it lacks nvmlDeviceGetCount_v2.
#include "fake_library.hpp"
#include "nvml_abi.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <optional>
#include <string_view>
#include <time.h>
#include <vector>

namespace {

struct Nvml {
    using Code = nvmlReturn_t;
    struct Options {
        std::string bus_id = "00000000:00:00.0";
        std::string name = "Fake NVIDIA GPU";
        bool energy = true;  // nvmlDeviceGetTotalEnergyConsumption
        bool instant = true; // field NVML_FI_DEV_POWER_INSTANT
        bool usage = true;   // nvmlDeviceGetPowerUsage
        nvmlValueType_t instant_type = NVML_VALUE_TYPE_UNSIGNED_INT;
        std::optional<unsigned int> limit_mw;
        unsigned long long energy_offset_mj = 0;
        double energy_cost_s = 0;
        double read_cost_s = 0;
        double update_s = 0;
        double window_s = 0;
        double lag_s = 0;
        double average_s = 0;
    };
    static constexpr const char* label = "fake nvml";
    static constexpr const char* fixture_env = "JP_FAKE_NVML_FIXTURE";
    static constexpr Code success = NVML_SUCCESS;
    static constexpr Code uninitialized = NVML_ERROR_UNINITIALIZED;
    static constexpr Code invalid_argument = NVML_ERROR_INVALID_ARGUMENT;
    static constexpr Code unknown = NVML_ERROR_UNKNOWN;
    static constexpr Code lost = NVML_ERROR_GPU_IS_LOST;

    static bool apply_gpu(Options& g, const jp::fake::Line& line) {
        if (line.words.size() > 2) {
            g.bus_id = line.words[2];
        }
        if (const auto model = line.option("model", ""); model == "h100") {
            g.name = "NVIDIA H100 80GB HBM3";
            g.limit_mw = 700'000;
            g.energy_cost_s = 3.9e-3;
            g.read_cost_s = 8e-6;
            g.update_s = 0.1;
            g.window_s = 0.030;
            g.lag_s = 0.005;
            g.average_s = 1.0;
        } else if (!model.empty()) {
            return false;
        }
        g.name = line.option("name", g.name);
        const auto ms = [&](const char* key, double fallback_s) {
            return std::stod(line.option(key, std::to_string(fallback_s * 1e3))) * 1e-3;
        };
        const auto us = [&](const char* key, double fallback_s) {
            return std::stod(line.option(key, std::to_string(fallback_s * 1e6))) * 1e-6;
        };
        g.energy_cost_s = us("energy_cost_us", g.energy_cost_s);
        g.read_cost_s = us("read_cost_us", g.read_cost_s);
        g.update_s = ms("update_ms", g.update_s);
        g.window_s = ms("window_ms", g.window_s);
        g.lag_s = ms("lag_ms", g.lag_s);
        g.average_s = ms("average_ms", g.average_s);
        for (const double v :
             {g.energy_cost_s, g.read_cost_s, g.update_s, g.window_s, g.lag_s, g.average_s}) {
            if (!std::isfinite(v) || v < 0) {
                return false;
            }
        }
        g.energy = line.flag("energy", g.energy);
        g.instant = line.flag("instant", g.instant);
        g.usage = line.flag("usage", g.usage);
        g.instant_type = static_cast<nvmlValueType_t>(std::stoul(line.option("instant_type", "1")));
        g.energy_offset_mj = std::stoull(line.option("energy_offset_mj", "0"));
        if (auto limit = line.option("limit_mw", ""); !limit.empty()) {
            g.limit_mw = static_cast<unsigned int>(std::stoul(limit));
        }
        return true;
    }
};

using Fake = jp::fake::FakeLibrary<Nvml>;
using FakeGpu = Fake::FakeGpu;

std::array<nvmlDevice_st, jp::fake::k_max_gpus> g_handles{};

// fn(gpu, t) for the GPU behind a handle, or the error a real library would return.
template <class Fn> nvmlReturn_t on_device(nvmlDevice_t device, Fn&& fn) {
    return Fake::on_gpu(device == nullptr ? jp::fake::k_max_gpus : device->index, fn);
}

// The time of the last update at or before t (t itself when the GPU updates continuously).
double updated_at(const FakeGpu& g, double t) {
    return g.update_s > 0 ? std::floor(t / g.update_s) * g.update_s : t;
}

// Mean power over [t - lag - window, t - lag], or the power at t - lag with no window.
double mean_watts(const FakeGpu& g, double t, double window, double lag) {
    const double b = std::max(0.0, t - lag);
    const double a = std::max(0.0, b - window);
    if (b - a <= 0) {
        return g.profile.watts_at(b);
    }
    return (g.profile.joules_until(b) - g.profile.joules_until(a)) / (b - a);
}

// nvmlDeviceGetPowerUsage and the POWER_AVERAGE field, in mW.
unsigned int average_milliwatts(const FakeGpu& g, double t) {
    const double w = mean_watts(g, updated_at(g, t), g.average_s, 0);
    return static_cast<unsigned int>(std::lround(w * 1000.0));
}

// A real driver's energy read spins in the kernel for milliseconds: the same CPU, here.
void spin_for(double seconds) {
    if (seconds <= 0) {
        return;
    }
    const auto cpu_now = [] {
        timespec ts{};
        ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    };
    const double until = cpu_now() + seconds;
    while (cpu_now() < until) {
    }
}

void fill_instant(const FakeGpu& g, double t, nvmlFieldValue_t& v) {
    const double mw = mean_watts(g, updated_at(g, t), g.window_s, g.lag_s) * 1000.0;
    const auto rounded = std::llround(mw);
    v.valueType = g.instant_type;
    switch (g.instant_type) {
    case NVML_VALUE_TYPE_DOUBLE:
        v.value.dVal = mw;
        break;
    case NVML_VALUE_TYPE_UNSIGNED_INT:
        v.value.uiVal = static_cast<unsigned int>(rounded);
        break;
    case NVML_VALUE_TYPE_UNSIGNED_LONG:
        v.value.ulVal = static_cast<unsigned long>(rounded);
        break;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
        v.value.ullVal = static_cast<unsigned long long>(rounded);
        break;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
        v.value.sllVal = rounded;
        break;
    case NVML_VALUE_TYPE_SIGNED_INT:
        v.value.siVal = static_cast<int>(rounded);
        break;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT:
        v.value.usVal = static_cast<unsigned short>(rounded);
        break;
    }
}

} // namespace

// ---- Exported entry points ----

JP_FAKE_EXPORT nvmlReturn_t nvmlInit_v2() {
    for (unsigned int i = 0; i < jp::fake::k_max_gpus; ++i) {
        g_handles[i].index = i;
    }
    return Fake::init();
}

JP_FAKE_EXPORT nvmlReturn_t nvmlShutdown() {
    return Fake::end_session() ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
}

#ifndef JP_FAKE_NVML_OMIT_COUNT
JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* deviceCount) {
    return Fake::count(deviceCount);
}
#endif

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
                                                          nvmlDevice_t* device) {
    if (index >= jp::fake::k_max_gpus || device == nullptr) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    return Fake::on_gpu(index, [&](FakeGpu&, double) {
        *device = &g_handles[index];
        return NVML_SUCCESS;
    });
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
    return on_device(device, [&](FakeGpu& g, double) {
        *pci = nvmlPciInfo_t{};
        if (std::sscanf(g.bus_id.c_str(), "%x:%x:%x", &pci->domain, &pci->bus, &pci->device) != 3) {
            return NVML_ERROR_UNKNOWN;
        }
        jp::fake::copy_text(g.bus_id, pci->busId, sizeof pci->busId);
        jp::fake::copy_text(
            fmt::format("{:04X}:{:02X}:{:02X}.0", pci->domain, pci->bus, pci->device),
            pci->busIdLegacy, sizeof pci->busIdLegacy);
        pci->pciDeviceId = 0x233010de; // H100 SXM5, vendor 0x10de
        return NVML_SUCCESS;
    });
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device,
                                              char* name,
                                              unsigned int length) {
    return on_device(device, [&](FakeGpu& g, double) {
        return jp::fake::copy_text(g.name, name, length) ? NVML_SUCCESS
                                                         : NVML_ERROR_INSUFFICIENT_SIZE;
    });
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* power) {
    return on_device(device, [&](FakeGpu& g, double t) {
        spin_for(g.read_cost_s);
        if (!g.usage) {
            return NVML_ERROR_NOT_SUPPORTED;
        }
        *power = average_milliwatts(g, t);
        return NVML_SUCCESS;
    });
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device,
                                                                unsigned long long* energy) {
    return on_device(device, [&](FakeGpu& g, double t) {
        if (!g.energy) {
            return NVML_ERROR_NOT_SUPPORTED;
        }
        spin_for(g.energy_cost_s);
        const double mj = std::floor(g.profile.joules_until(updated_at(g, t)) * 1000.0);
        *energy = g.energy_offset_mj + static_cast<unsigned long long>(mj);
        return NVML_SUCCESS;
    });
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device,
                                                     int valuesCount,
                                                     nvmlFieldValue_t* values) {
    return on_device(device, [&](FakeGpu& g, double t) {
        if (valuesCount < 0 || (valuesCount > 0 && values == nullptr)) {
            return NVML_ERROR_INVALID_ARGUMENT;
        }
        spin_for(g.read_cost_s);
        for (int i = 0; i < valuesCount; ++i) {
            nvmlFieldValue_t& v = values[i];
            v.timestamp = jp::fake::wall_microseconds();
            v.latencyUsec = 0;
            const bool instant = v.fieldId == NVML_FI_DEV_POWER_INSTANT && v.scopeId == 0;
            const bool average = v.fieldId == NVML_FI_DEV_POWER_AVERAGE && v.scopeId == 0;
            v.nvmlReturn = (instant && g.instant) || (average && g.usage)
                               ? NVML_SUCCESS
                               : NVML_ERROR_NOT_SUPPORTED;
            if (v.nvmlReturn == NVML_SUCCESS && instant) {
                fill_instant(g, t, v);
            } else if (v.nvmlReturn == NVML_SUCCESS) {
                v.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
                v.value.uiVal = average_milliwatts(g, t);
            }
        }
        return NVML_SUCCESS;
    });
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
                                                          nvmlUtilization_t* utilization) {
    return on_device(device, [&](FakeGpu& g, double) {
        spin_for(g.read_cost_s);
        if (!g.util) {
            return NVML_ERROR_NOT_SUPPORTED;
        }
        *utilization = nvmlUtilization_t{*g.util, *g.util / 2};
        return NVML_SUCCESS;
    });
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device,
                                                            unsigned int* limit) {
    return on_device(device, [&](FakeGpu& g, double) {
        if (!g.limit_mw) {
            return NVML_ERROR_NOT_SUPPORTED;
        }
        *limit = *g.limit_mw;
        return NVML_SUCCESS;
    });
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
                                                                    unsigned int* infoCount,
                                                                    void* infos) {
    return on_device(device, [&](FakeGpu& g, double) {
        if (infoCount == nullptr) {
            return NVML_ERROR_INVALID_ARGUMENT;
        }
        std::vector<unsigned int> pids;
        if (const char* path = std::getenv("JP_FAKE_NVML_PROCESSES"); path != nullptr) {
            if (std::FILE* f = std::fopen(path, "r")) {
                unsigned int gpu = 0;
                unsigned int pid = 0;
                while (std::fscanf(f, "%u %u", &gpu, &pid) == 2) {
                    if (gpu == device->index) {
                        pids.push_back(pid);
                    }
                }
                std::fclose(f);
            }
        }
        spin_for(g.read_cost_s * static_cast<double>(1 + 3 * pids.size()));
        const auto capacity = *infoCount;
        *infoCount = static_cast<unsigned int>(pids.size());
        if (pids.empty()) {
            return NVML_SUCCESS;
        }
        if (capacity < pids.size() || infos == nullptr) {
            return NVML_ERROR_INSUFFICIENT_SIZE;
        }
        // R535 drivers write a 32-byte entry (usedGpuCcProtectedMemory after these fields).
        const char* stride_env = std::getenv("JP_FAKE_NVML_PROCESS_STRIDE");
        const std::size_t stride =
            stride_env != nullptr && std::string_view{stride_env} == "32" ? 32 : 24;
        auto* out = static_cast<unsigned char*>(infos);
        for (std::size_t i = 0; i < pids.size(); ++i) {
            const nvmlProcessInfo_t info{pids[i], 1ULL << 30, 0xFFFFFFFFU, 0xFFFFFFFFU};
            std::memcpy(out + i * stride, &info, sizeof info);
            if (stride == 32) {
                std::memset(out + i * stride + sizeof info, 0, 8); // no protected memory
            }
        }
        return NVML_SUCCESS;
    });
}

// Test hook, not part of NVML: initialisations not yet matched by nvmlShutdown.
JP_FAKE_EXPORT int jp_fake_nvml_sessions() {
    return Fake::sessions();
}
