// A stand-in for librocm_smi64.so with the same C ABI for the entry points jouleprof uses,
// playing a scripted profile from the text fixture named by JP_FAKE_ROCM_FIXTURE. The
// fixture is re-read and the clock restarted on every rsmi_init.
//
// Fixture: one directive per line, '#' starts a comment line, t in seconds since rsmi_init.
//   init_error <code>                  rsmi_init returns <code> (e.g. 8 INIT_ERROR)
//   gpu <index> [bdfid=<0x…>] [energy=yes|no] [power=yes|no] [ave=yes|no]
//       [resolution=<µJ per count>] [power_type=0|1] [cap_uw=<µW>] [name=<rest of the line>]
//   power <index> <t> <watts>          a point of the GPU's piecewise-linear power profile
//   util <index> <percent>             rsmi_dev_busy_percent_get (absent: NOT_SUPPORTED)
//   lost <index> <t> [code=2] [until=<t>]  every call on the GPU returns <code> from t on
//                                      (2, NOT_SUPPORTED, is what a vanished sysfs file gives)
// The energy counter is the exact integral of the profile in whole counts of `resolution`.
// Built twice: with -DJP_FAKE_ROCM_OMIT_COUNT it lacks rsmi_num_monitor_devices.
#include "profile.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>

#define JP_FAKE_EXPORT extern "C" __attribute__((visibility("default")))

// ---- The ABI, spelt as rocm_smi.h spells it (research/vendor-apis.md) ----
enum rsmi_status_t : std::uint32_t {
    RSMI_STATUS_SUCCESS = 0,
    RSMI_STATUS_INVALID_ARGS = 1,
    RSMI_STATUS_NOT_SUPPORTED = 2,
    RSMI_STATUS_INSUFFICIENT_SIZE = 11,
    RSMI_STATUS_INIT_ERROR = 8,
    RSMI_STATUS_UNKNOWN_ERROR = 0xFFFFFFFF,
};
enum RSMI_POWER_TYPE : std::uint32_t {
    RSMI_AVERAGE_POWER = 0,
    RSMI_CURRENT_POWER = 1,
    RSMI_INVALID_POWER = 0xFFFFFFFF,
};

namespace {

constexpr std::size_t k_max_gpus = 16;
constexpr double k_never = std::numeric_limits<double>::infinity();

struct FakeGpu {
    std::uint64_t bdfid = 0;
    std::string name = "Fake AMD GPU";
    bool energy = true; // rsmi_dev_energy_count_get
    bool power = true;  // rsmi_dev_power_get
    bool ave = true;    // rsmi_dev_power_ave_get
    float resolution_uj = 15.3F;
    RSMI_POWER_TYPE power_type = RSMI_CURRENT_POWER;
    std::optional<std::uint64_t> cap_uw;
    std::optional<std::uint32_t> util;
    jp::fake::Profile profile;
    double lost_from = k_never;
    double lost_until = k_never;
    rsmi_status_t lost_code = RSMI_STATUS_NOT_SUPPORTED;
};

struct State {
    rsmi_status_t init_error = RSMI_STATUS_SUCCESS;
    std::uint32_t count = 0;
    std::array<FakeGpu, k_max_gpus> gpus;
    double origin = 0; // mono_seconds() at rsmi_init
    int sessions = 0;  // rsmi_init minus rsmi_shut_down
};

State& state() {
    static State s;
    return s;
}

void apply_gpu(FakeGpu& g, const jp::fake::Line& line) {
    g.bdfid = std::stoull(line.option("bdfid", "0"), nullptr, 0);
    g.name = line.option("name", g.name);
    g.energy = line.flag("energy", g.energy);
    g.power = line.flag("power", g.power);
    g.ave = line.flag("ave", g.ave);
    g.resolution_uj = std::stof(line.option("resolution", "15.3"));
    g.power_type = static_cast<RSMI_POWER_TYPE>(std::stoul(line.option("power_type", "1")));
    if (auto cap = line.option("cap_uw", ""); !cap.empty()) {
        g.cap_uw = std::stoull(cap);
    }
}

// Applies one directive; false when it is not understood.
bool apply(State& s, const jp::fake::Line& line) {
    const auto& w = line.words;
    if (w.size() == 2 && w[0] == "init_error") {
        s.init_error = static_cast<rsmi_status_t>(std::stoul(w[1]));
        return true;
    }
    const auto index = w.size() >= 2 ? std::stoul(w[1]) : k_max_gpus;
    if (index >= k_max_gpus) {
        return false;
    }
    s.count = std::max(s.count, static_cast<std::uint32_t>(index) + 1);
    FakeGpu& g = s.gpus[index];
    if (w[0] == "gpu" && w.size() == 2) {
        apply_gpu(g, line);
    } else if (w[0] == "power" && w.size() == 4) {
        g.profile.add(std::stod(w[2]), std::stod(w[3]));
    } else if (w[0] == "util" && w.size() == 3) {
        g.util = static_cast<std::uint32_t>(std::stoul(w[2]));
    } else if (w[0] == "lost" && w.size() == 3) {
        g.lost_from = std::stod(w[2]);
        g.lost_code = static_cast<rsmi_status_t>(std::stoul(line.option("code", "2")));
        g.lost_until = std::stod(line.option("until", "inf"));
    } else {
        return false;
    }
    return true;
}

bool load_fixture(State& s) {
    const char* path = std::getenv("JP_FAKE_ROCM_FIXTURE");
    std::ifstream in{path == nullptr ? "" : path};
    if (!in) {
        std::fprintf(stderr, "fake rocm_smi: cannot read JP_FAKE_ROCM_FIXTURE '%s'\n",
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
        std::fprintf(stderr, "fake rocm_smi: bad fixture line '%s'\n", text.c_str());
        return false;
    }
    return true;
}

// The GPU at an index and the profile time, or the status a real library would return.
rsmi_status_t look_up(std::uint32_t index, FakeGpu*& gpu, double& t) {
    State& s = state();
    if (s.sessions == 0) {
        return RSMI_STATUS_INIT_ERROR;
    }
    if (index >= s.count) {
        return RSMI_STATUS_INVALID_ARGS;
    }
    gpu = &s.gpus[index];
    t = jp::fake::mono_seconds() - s.origin;
    if (t >= gpu->lost_from && t < gpu->lost_until) {
        return gpu->lost_code;
    }
    return RSMI_STATUS_SUCCESS;
}

std::uint64_t microwatts(const FakeGpu& g, double t) {
    return static_cast<std::uint64_t>(std::llround(g.profile.watts_at(t) * 1e6));
}

} // namespace

// ---- Exported entry points ----

JP_FAKE_EXPORT rsmi_status_t rsmi_init(std::uint64_t /*init_flags*/) {
    State& s = state();
    const int sessions = s.sessions;
    s = State{};
    s.sessions = sessions;
    if (!load_fixture(s)) {
        return RSMI_STATUS_UNKNOWN_ERROR;
    }
    if (s.init_error != RSMI_STATUS_SUCCESS) {
        return s.init_error;
    }
    s.origin = jp::fake::mono_seconds();
    ++s.sessions;
    return RSMI_STATUS_SUCCESS;
}

JP_FAKE_EXPORT rsmi_status_t rsmi_shut_down() {
    State& s = state();
    if (s.sessions > 0) {
        --s.sessions;
    }
    return RSMI_STATUS_SUCCESS;
}

#ifndef JP_FAKE_ROCM_OMIT_COUNT
JP_FAKE_EXPORT rsmi_status_t rsmi_num_monitor_devices(std::uint32_t* num_devices) {
    if (state().sessions == 0) {
        return RSMI_STATUS_INIT_ERROR;
    }
    if (num_devices == nullptr) {
        return RSMI_STATUS_INVALID_ARGS;
    }
    *num_devices = state().count;
    return RSMI_STATUS_SUCCESS;
}
#endif

JP_FAKE_EXPORT rsmi_status_t rsmi_dev_name_get(std::uint32_t dv_ind, char* name, std::size_t len) {
    FakeGpu* g = nullptr;
    double t = 0;
    if (const rsmi_status_t r = look_up(dv_ind, g, t); r != RSMI_STATUS_SUCCESS) {
        return r;
    }
    if (name == nullptr || g->name.size() + 1 > len) {
        return RSMI_STATUS_INSUFFICIENT_SIZE;
    }
    std::memcpy(name, g->name.c_str(), g->name.size() + 1);
    return RSMI_STATUS_SUCCESS;
}

JP_FAKE_EXPORT rsmi_status_t rsmi_dev_pci_id_get(std::uint32_t dv_ind, std::uint64_t* bdfid) {
    FakeGpu* g = nullptr;
    double t = 0;
    if (const rsmi_status_t r = look_up(dv_ind, g, t); r != RSMI_STATUS_SUCCESS) {
        return r;
    }
    *bdfid = g->bdfid;
    return RSMI_STATUS_SUCCESS;
}

JP_FAKE_EXPORT rsmi_status_t rsmi_dev_energy_count_get(std::uint32_t dv_ind,
                                                       std::uint64_t* power,
                                                       float* counter_resolution,
                                                       std::uint64_t* timestamp) {
    FakeGpu* g = nullptr;
    double t = 0;
    if (const rsmi_status_t r = look_up(dv_ind, g, t); r != RSMI_STATUS_SUCCESS) {
        return r;
    }
    if (!g->energy) {
        return RSMI_STATUS_NOT_SUPPORTED;
    }
    const double counts =
        std::floor(g->profile.joules_until(t) * 1e6 / static_cast<double>(g->resolution_uj));
    *power = static_cast<std::uint64_t>(counts); // the raw counter, despite the name
    *counter_resolution = g->resolution_uj;
    *timestamp = static_cast<std::uint64_t>(jp::fake::mono_seconds() * 1e9);
    return RSMI_STATUS_SUCCESS;
}

JP_FAKE_EXPORT rsmi_status_t rsmi_dev_power_get(std::uint32_t dv_ind,
                                                std::uint64_t* power,
                                                RSMI_POWER_TYPE* type) {
    FakeGpu* g = nullptr;
    double t = 0;
    if (const rsmi_status_t r = look_up(dv_ind, g, t); r != RSMI_STATUS_SUCCESS) {
        return r;
    }
    if (!g->power) {
        return RSMI_STATUS_NOT_SUPPORTED;
    }
    *power = microwatts(*g, t);
    *type = g->power_type;
    return RSMI_STATUS_SUCCESS;
}

JP_FAKE_EXPORT rsmi_status_t rsmi_dev_power_ave_get(std::uint32_t dv_ind,
                                                    std::uint32_t sensor_ind,
                                                    std::uint64_t* power) {
    FakeGpu* g = nullptr;
    double t = 0;
    if (const rsmi_status_t r = look_up(dv_ind, g, t); r != RSMI_STATUS_SUCCESS) {
        return r;
    }
    if (!g->ave || sensor_ind != 0) {
        return RSMI_STATUS_NOT_SUPPORTED;
    }
    *power = microwatts(*g, t);
    return RSMI_STATUS_SUCCESS;
}

JP_FAKE_EXPORT rsmi_status_t rsmi_dev_busy_percent_get(std::uint32_t dv_ind,
                                                       std::uint32_t* busy_percent) {
    FakeGpu* g = nullptr;
    double t = 0;
    if (const rsmi_status_t r = look_up(dv_ind, g, t); r != RSMI_STATUS_SUCCESS) {
        return r;
    }
    if (!g->util) {
        return RSMI_STATUS_NOT_SUPPORTED;
    }
    *busy_percent = *g->util;
    return RSMI_STATUS_SUCCESS;
}

JP_FAKE_EXPORT rsmi_status_t rsmi_dev_power_cap_get(std::uint32_t dv_ind,
                                                    std::uint32_t sensor_ind,
                                                    std::uint64_t* cap) {
    FakeGpu* g = nullptr;
    double t = 0;
    if (const rsmi_status_t r = look_up(dv_ind, g, t); r != RSMI_STATUS_SUCCESS) {
        return r;
    }
    if (!g->cap_uw || sensor_ind != 0) {
        return RSMI_STATUS_NOT_SUPPORTED;
    }
    *cap = *g->cap_uw;
    return RSMI_STATUS_SUCCESS;
}

// Test hook, not part of ROCm SMI: rsmi_init calls not yet matched by rsmi_shut_down.
JP_FAKE_EXPORT int jp_fake_rocm_sessions() {
    return state().sessions;
}
