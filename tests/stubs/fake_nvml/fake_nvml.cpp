// A stand-in for libnvidia-ml.so.1 with the same C ABI for the entry points jouleprof uses,
// playing a scripted profile from the text fixture named by JP_FAKE_NVML_FIXTURE. The
// fixture is re-read and the clock restarted on every nvmlInit_v2.
//
// Fixture: one directive per line, '#' starts a comment line, t in seconds since nvmlInit_v2.
//   init_error <code>                   nvmlInit_v2 returns <code> (e.g. 9 DRIVER_NOT_LOADED)
//   gpu <index> <busId> [energy=yes|no] [instant=yes|no] [usage=yes|no] [instant_type=0..6]
//       [limit_mw=<mW>] [energy_offset_mj=<mJ>] [name=<rest of the line>]
//   power <index> <t> <watts>           a point of the GPU's piecewise-linear power profile
//   util <index> <percent>              nvmlDeviceGetUtilizationRates (absent: NOT_SUPPORTED)
//   lost <index> <t> [code=15] [until=<t>]  every call on the GPU returns <code> from t on
// The energy counter is offset + the exact integral of the profile, floored to whole mJ.
// Built twice: with -DJP_FAKE_NVML_OMIT_COUNT it lacks nvmlDeviceGetCount_v2.
#include "nvml_abi.hpp"
#include "profile.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <optional>

#define JP_FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr std::size_t k_max_gpus = 16;
constexpr double k_never = std::numeric_limits<double>::infinity();

struct FakeGpu {
    std::string bus_id = "00000000:00:00.0";
    std::string name = "Fake NVIDIA GPU";
    bool energy = true;  // nvmlDeviceGetTotalEnergyConsumption
    bool instant = true; // field NVML_FI_DEV_POWER_INSTANT
    bool usage = true;   // nvmlDeviceGetPowerUsage
    nvmlValueType_t instant_type = NVML_VALUE_TYPE_UNSIGNED_INT;
    std::optional<unsigned int> limit_mw;
    unsigned long long energy_offset_mj = 0;
    std::optional<unsigned int> util;
    jp::fake::Profile profile;
    double lost_from = k_never;
    double lost_until = k_never;
    nvmlReturn_t lost_code = NVML_ERROR_GPU_IS_LOST;
};

struct State {
    nvmlReturn_t init_error = NVML_SUCCESS;
    unsigned int count = 0;
    std::array<FakeGpu, k_max_gpus> gpus;
    double origin = 0; // mono_seconds() at nvmlInit_v2
    int sessions = 0;  // nvmlInit_v2 minus nvmlShutdown
};

State& state() {
    static State s;
    return s;
}

std::array<nvmlDevice_st, k_max_gpus> g_handles{};

FakeGpu* gpu_line(State& s, const jp::fake::Line& line) {
    if (line.words.size() < 2) {
        return nullptr;
    }
    const auto index = std::stoul(line.words[1]);
    if (index >= k_max_gpus) {
        return nullptr;
    }
    s.count = std::max(s.count, static_cast<unsigned int>(index) + 1);
    return &s.gpus[index];
}

void apply_gpu(FakeGpu& g, const jp::fake::Line& line) {
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
}

// Applies one directive; false when it is not understood.
bool apply(State& s, const jp::fake::Line& line) {
    const auto& w = line.words;
    if (w.size() == 2 && w[0] == "init_error") {
        s.init_error = static_cast<nvmlReturn_t>(std::stoul(w[1]));
        return true;
    }
    FakeGpu* g = gpu_line(s, line);
    if (g == nullptr) {
        return false;
    }
    if (w[0] == "gpu") {
        apply_gpu(*g, line);
    } else if (w[0] == "power" && w.size() == 4) {
        g->profile.add(std::stod(w[2]), std::stod(w[3]));
    } else if (w[0] == "util" && w.size() == 3) {
        g->util = static_cast<unsigned int>(std::stoul(w[2]));
    } else if (w[0] == "lost" && w.size() == 3) {
        g->lost_from = std::stod(w[2]);
        g->lost_code = static_cast<nvmlReturn_t>(std::stoul(line.option("code", "15")));
        g->lost_until = std::stod(line.option("until", "inf"));
    } else {
        return false;
    }
    return true;
}

bool load_fixture(State& s) {
    const char* path = std::getenv("JP_FAKE_NVML_FIXTURE");
    std::ifstream in{path == nullptr ? "" : path};
    if (!in) {
        std::fprintf(stderr, "fake nvml: cannot read JP_FAKE_NVML_FIXTURE '%s'\n",
                     path == nullptr ? "" : path);
        return false;
    }
    std::string text;
    while (std::getline(in, text)) {
        if (text.empty() || text.starts_with('#')) {
            continue;
        }
        try {
            if (apply(s, jp::fake::split_line(text))) {
                continue;
            }
        } catch (const std::exception&) { // NOLINT(bugprone-empty-catch): reported below
        }
        std::fprintf(stderr, "fake nvml: bad fixture line '%s'\n", text.c_str());
        return false;
    }
    return true;
}

// The GPU behind a handle and the profile time, or the error a real library would return.
nvmlReturn_t look_up(nvmlDevice_t device, FakeGpu*& gpu, double& t) {
    State& s = state();
    if (s.sessions == 0) {
        return NVML_ERROR_UNINITIALIZED;
    }
    if (device == nullptr || device->index >= s.count) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    gpu = &s.gpus[device->index];
    t = jp::fake::mono_seconds() - s.origin;
    if (t >= gpu->lost_from && t < gpu->lost_until) {
        return gpu->lost_code;
    }
    return NVML_SUCCESS;
}

bool copy_text(const std::string& text, char* out, std::size_t size) {
    if (out == nullptr || text.size() + 1 > size) {
        return false;
    }
    std::memcpy(out, text.c_str(), text.size() + 1);
    return true;
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
    State& s = state();
    const int sessions = s.sessions;
    s = State{};
    s.sessions = sessions;
    for (unsigned int i = 0; i < k_max_gpus; ++i) {
        g_handles[i].index = i;
    }
    if (!load_fixture(s)) {
        return NVML_ERROR_UNKNOWN;
    }
    if (s.init_error != NVML_SUCCESS) {
        return s.init_error;
    }
    s.origin = jp::fake::mono_seconds();
    ++s.sessions;
    return NVML_SUCCESS;
}

JP_FAKE_EXPORT nvmlReturn_t nvmlShutdown() {
    State& s = state();
    if (s.sessions == 0) {
        return NVML_ERROR_UNINITIALIZED;
    }
    --s.sessions;
    return NVML_SUCCESS;
}

#ifndef JP_FAKE_NVML_OMIT_COUNT
JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* deviceCount) {
    if (state().sessions == 0) {
        return NVML_ERROR_UNINITIALIZED;
    }
    if (deviceCount == nullptr) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *deviceCount = state().count;
    return NVML_SUCCESS;
}
#endif

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
                                                          nvmlDevice_t* device) {
    if (index >= k_max_gpus || device == nullptr) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    FakeGpu* g = nullptr;
    double t = 0;
    const nvmlReturn_t r = look_up(&g_handles[index], g, t);
    if (r == NVML_SUCCESS) {
        *device = &g_handles[index];
    }
    return r;
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
    FakeGpu* g = nullptr;
    double t = 0;
    if (const nvmlReturn_t r = look_up(device, g, t); r != NVML_SUCCESS) {
        return r;
    }
    *pci = nvmlPciInfo_t{};
    if (std::sscanf(g->bus_id.c_str(), "%x:%x:%x", &pci->domain, &pci->bus, &pci->device) != 3) {
        return NVML_ERROR_UNKNOWN;
    }
    copy_text(g->bus_id, pci->busId, sizeof pci->busId);
    copy_text(fmt::format("{:04X}:{:02X}:{:02X}.0", pci->domain, pci->bus, pci->device),
              pci->busIdLegacy, sizeof pci->busIdLegacy);
    pci->pciDeviceId = 0x233010de; // H100 SXM5, vendor 0x10de
    return NVML_SUCCESS;
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device,
                                              char* name,
                                              unsigned int length) {
    FakeGpu* g = nullptr;
    double t = 0;
    if (const nvmlReturn_t r = look_up(device, g, t); r != NVML_SUCCESS) {
        return r;
    }
    return copy_text(g->name, name, length) ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE;
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* power) {
    FakeGpu* g = nullptr;
    double t = 0;
    if (const nvmlReturn_t r = look_up(device, g, t); r != NVML_SUCCESS) {
        return r;
    }
    if (!g->usage) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *power = milliwatts(*g, t);
    return NVML_SUCCESS;
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device,
                                                                unsigned long long* energy) {
    FakeGpu* g = nullptr;
    double t = 0;
    if (const nvmlReturn_t r = look_up(device, g, t); r != NVML_SUCCESS) {
        return r;
    }
    if (!g->energy) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    const double mj = std::floor(g->profile.joules_until(t) * 1000.0);
    *energy = g->energy_offset_mj + static_cast<unsigned long long>(mj);
    return NVML_SUCCESS;
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device,
                                                     int valuesCount,
                                                     nvmlFieldValue_t* values) {
    FakeGpu* g = nullptr;
    double t = 0;
    if (const nvmlReturn_t r = look_up(device, g, t); r != NVML_SUCCESS) {
        return r;
    }
    if (valuesCount < 0 || (valuesCount > 0 && values == nullptr)) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    for (int i = 0; i < valuesCount; ++i) {
        nvmlFieldValue_t& v = values[i];
        v.timestamp = jp::fake::wall_microseconds();
        v.latencyUsec = 0;
        const bool instant = v.fieldId == NVML_FI_DEV_POWER_INSTANT && v.scopeId == 0;
        v.nvmlReturn = instant && g->instant ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
        if (v.nvmlReturn == NVML_SUCCESS) {
            fill_instant(*g, t, v);
        }
    }
    return NVML_SUCCESS;
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
                                                          nvmlUtilization_t* utilization) {
    FakeGpu* g = nullptr;
    double t = 0;
    if (const nvmlReturn_t r = look_up(device, g, t); r != NVML_SUCCESS) {
        return r;
    }
    if (!g->util) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *utilization = nvmlUtilization_t{*g->util, *g->util / 2};
    return NVML_SUCCESS;
}

JP_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device,
                                                            unsigned int* limit) {
    FakeGpu* g = nullptr;
    double t = 0;
    if (const nvmlReturn_t r = look_up(device, g, t); r != NVML_SUCCESS) {
        return r;
    }
    if (!g->limit_mw) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *limit = *g->limit_mw;
    return NVML_SUCCESS;
}

// Test hook, not part of NVML: initialisations not yet matched by nvmlShutdown.
JP_FAKE_EXPORT int jp_fake_nvml_sessions() {
    return state().sessions;
}
