// SPDX-License-Identifier: BSD-3-Clause
// A stand-in for libnvidia-ml.so.1 with the same C ABI for the entry points jouleprof uses,
// playing a scripted profile from the text fixture named by JP_FAKE_NVML_FIXTURE. The
// fixture is re-read and the clock restarted on every nvmlInit_v2.
//
// Fixture: the directives of ../common/fake_library.hpp (init_error, gpu, power, util, lost;
// t in seconds since nvmlInit_v2), with these NVML specifics:
//   init_error <code>                   e.g. 9 DRIVER_NOT_LOADED
//   gpu <index> <busId> [energy=yes|no] [instant=yes|no] [usage=yes|no] [instant_type=0..6]
//       [limit_mw=<mW>] [energy_offset_mj=<mJ>] [name=<rest of the line>]
//   util <index> <percent>              nvmlDeviceGetUtilizationRates (absent: NOT_SUPPORTED)
//   lost <index> <t> [code=15] [until=<t>]
// The energy counter is offset + the exact integral of the profile, floored to whole mJ.
// Built twice: with -DJP_FAKE_NVML_OMIT_COUNT it lacks nvmlDeviceGetCount_v2.
#include "fake_library.hpp"
#include "nvml_abi.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <optional>

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
        g.name = line.option("name", g.name);
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

unsigned int milliwatts(const FakeGpu& g, double t) {
    return static_cast<unsigned int>(std::lround(g.profile.watts_at(t) * 1000.0));
}

void fill_instant(const FakeGpu& g, double t, nvmlFieldValue_t& v) {
    const double mw = g.profile.watts_at(t) * 1000.0;
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
        if (!g.usage) {
            return NVML_ERROR_NOT_SUPPORTED;
        }
        *power = milliwatts(g, t);
        return NVML_SUCCESS;
    });
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device,
                                                                unsigned long long* energy) {
    return on_device(device, [&](FakeGpu& g, double t) {
        if (!g.energy) {
            return NVML_ERROR_NOT_SUPPORTED;
        }
        const double mj = std::floor(g.profile.joules_until(t) * 1000.0);
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
        for (int i = 0; i < valuesCount; ++i) {
            nvmlFieldValue_t& v = values[i];
            v.timestamp = jp::fake::wall_microseconds();
            v.latencyUsec = 0;
            const bool instant = v.fieldId == NVML_FI_DEV_POWER_INSTANT && v.scopeId == 0;
            v.nvmlReturn = instant && g.instant ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
            if (v.nvmlReturn == NVML_SUCCESS) {
                fill_instant(g, t, v);
            }
        }
        return NVML_SUCCESS;
    });
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
                                                          nvmlUtilization_t* utilization) {
    return on_device(device, [&](FakeGpu& g, double) {
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

// Test hook, not part of NVML: initialisations not yet matched by nvmlShutdown.
JP_FAKE_EXPORT int jp_fake_nvml_sessions() {
    return Fake::sessions();
}
