// SPDX-License-Identifier: BSD-3-Clause
// A stand-in for librocm_smi64.so with the same C ABI for the entry points jouleprof uses,
// playing a scripted profile from the text fixture named by JP_FAKE_ROCM_FIXTURE. The
// fixture is re-read and the clock restarted on every rsmi_init.
//
// Fixture: the directives of ../common/fake_library.hpp (init_error, gpu, power, util, lost;
// t in seconds since rsmi_init), with these ROCm SMI specifics:
//   init_error <code>                  e.g. 8 INIT_ERROR
//   gpu <index> [bdfid=<0x…>] [energy=yes|no] [power=yes|no] [ave=yes|no]
//       [resolution=<µJ per count>] [power_type=0|1] [cap_uw=<µW>] [name=<rest of the line>]
//   util <index> <percent>             rsmi_dev_busy_percent_get (absent: NOT_SUPPORTED)
//   lost <index> <t> [code=2] [until=<t>]  (2, NOT_SUPPORTED, is what a vanished sysfs file
//                                      gives)
// The energy counter is the exact integral of the profile in whole counts of `resolution`.
// Built twice: with -DJP_FAKE_ROCM_OMIT_COUNT it lacks rsmi_num_monitor_devices.
#include "fake_library.hpp"

#include <cmath>
#include <cstdint>
#include <optional>

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

struct RocmSmi {
    using Code = rsmi_status_t;
    struct Options {
        std::uint64_t bdfid = 0;
        std::string name = "Fake AMD GPU";
        bool energy = true; // rsmi_dev_energy_count_get
        bool power = true;  // rsmi_dev_power_get
        bool ave = true;    // rsmi_dev_power_ave_get
        float resolution_uj = 15.3F;
        RSMI_POWER_TYPE power_type = RSMI_CURRENT_POWER;
        std::optional<std::uint64_t> cap_uw;
    };
    static constexpr const char* label = "fake rocm_smi";
    static constexpr const char* fixture_env = "JP_FAKE_ROCM_FIXTURE";
    static constexpr Code success = RSMI_STATUS_SUCCESS;
    static constexpr Code uninitialized = RSMI_STATUS_INIT_ERROR;
    static constexpr Code invalid_argument = RSMI_STATUS_INVALID_ARGS;
    static constexpr Code unknown = RSMI_STATUS_UNKNOWN_ERROR;
    static constexpr Code lost = RSMI_STATUS_NOT_SUPPORTED;

    static bool apply_gpu(Options& g, const jp::fake::Line& line) {
        if (line.words.size() != 2) {
            return false;
        }
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
        return true;
    }
};

using Fake = jp::fake::FakeLibrary<RocmSmi>;
using FakeGpu = Fake::FakeGpu;

std::uint64_t microwatts(const FakeGpu& g, double t) {
    return static_cast<std::uint64_t>(std::llround(g.profile.watts_at(t) * 1e6));
}

} // namespace

// ---- Exported entry points ----

JP_FAKE_EXPORT rsmi_status_t rsmi_init(std::uint64_t /*init_flags*/) {
    return Fake::init();
}

JP_FAKE_EXPORT rsmi_status_t rsmi_shut_down() {
    Fake::end_session(); // ROCm SMI does not complain about an unmatched shutdown
    return RSMI_STATUS_SUCCESS;
}

#ifndef JP_FAKE_ROCM_OMIT_COUNT
JP_FAKE_EXPORT rsmi_status_t rsmi_num_monitor_devices(std::uint32_t* num_devices) {
    return Fake::count(num_devices);
}
#endif

JP_FAKE_EXPORT rsmi_status_t rsmi_dev_name_get(std::uint32_t dv_ind, char* name, std::size_t len) {
    return Fake::on_gpu(dv_ind, [&](FakeGpu& g, double) {
        return jp::fake::copy_text(g.name, name, len) ? RSMI_STATUS_SUCCESS
                                                      : RSMI_STATUS_INSUFFICIENT_SIZE;
    });
}

JP_FAKE_EXPORT rsmi_status_t rsmi_dev_pci_id_get(std::uint32_t dv_ind, std::uint64_t* bdfid) {
    return Fake::on_gpu(dv_ind, [&](FakeGpu& g, double) {
        *bdfid = g.bdfid;
        return RSMI_STATUS_SUCCESS;
    });
}

JP_FAKE_EXPORT rsmi_status_t rsmi_dev_energy_count_get(std::uint32_t dv_ind,
                                                       std::uint64_t* power,
                                                       float* counter_resolution,
                                                       std::uint64_t* timestamp) {
    return Fake::on_gpu(dv_ind, [&](FakeGpu& g, double t) {
        if (!g.energy) {
            return RSMI_STATUS_NOT_SUPPORTED;
        }
        const double counts =
            std::floor(g.profile.joules_until(t) * 1e6 / static_cast<double>(g.resolution_uj));
        *power = static_cast<std::uint64_t>(counts); // the raw counter, despite the name
        *counter_resolution = g.resolution_uj;
        *timestamp = static_cast<std::uint64_t>(jp::fake::mono_seconds() * 1e9);
        return RSMI_STATUS_SUCCESS;
    });
}

JP_FAKE_EXPORT rsmi_status_t rsmi_dev_power_get(std::uint32_t dv_ind,
                                                std::uint64_t* power,
                                                RSMI_POWER_TYPE* type) {
    return Fake::on_gpu(dv_ind, [&](FakeGpu& g, double t) {
        if (!g.power) {
            return RSMI_STATUS_NOT_SUPPORTED;
        }
        *power = microwatts(g, t);
        *type = g.power_type;
        return RSMI_STATUS_SUCCESS;
    });
}

JP_FAKE_EXPORT rsmi_status_t rsmi_dev_power_ave_get(std::uint32_t dv_ind,
                                                    std::uint32_t sensor_ind,
                                                    std::uint64_t* power) {
    return Fake::on_gpu(dv_ind, [&](FakeGpu& g, double t) {
        if (!g.ave || sensor_ind != 0) {
            return RSMI_STATUS_NOT_SUPPORTED;
        }
        *power = microwatts(g, t);
        return RSMI_STATUS_SUCCESS;
    });
}

JP_FAKE_EXPORT rsmi_status_t rsmi_dev_busy_percent_get(std::uint32_t dv_ind,
                                                       std::uint32_t* busy_percent) {
    return Fake::on_gpu(dv_ind, [&](FakeGpu& g, double) {
        if (!g.util) {
            return RSMI_STATUS_NOT_SUPPORTED;
        }
        *busy_percent = *g.util;
        return RSMI_STATUS_SUCCESS;
    });
}

JP_FAKE_EXPORT rsmi_status_t rsmi_dev_power_cap_get(std::uint32_t dv_ind,
                                                    std::uint32_t sensor_ind,
                                                    std::uint64_t* cap) {
    return Fake::on_gpu(dv_ind, [&](FakeGpu& g, double) {
        if (!g.cap_uw || sensor_ind != 0) {
            return RSMI_STATUS_NOT_SUPPORTED;
        }
        *cap = *g.cap_uw;
        return RSMI_STATUS_SUCCESS;
    });
}

// Test hook, not part of ROCm SMI: rsmi_init calls not yet matched by rsmi_shut_down.
JP_FAKE_EXPORT int jp_fake_rocm_sessions() {
    return Fake::sessions();
}
