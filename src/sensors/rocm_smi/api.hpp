// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The slice of the ROCm SMI C ABI this backend uses, declared here (no vendor header), and
// the loaded library with rsmi_init done. Prototypes and values follow rocm_smi.h, see
// research/vendor-apis.md. Every call takes a device index and scalars: no structs.
#include "core/error.hpp"
#include "sensors/host.hpp"
#include "sensors/sensor.hpp"
#include "sensors/vendor_library.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace jp::sensors::rocm_smi {

using Status = std::uint32_t; // rsmi_status_t: a 4-byte C enum (UNKNOWN_ERROR is 0xFFFFFFFF)

constexpr Status k_success = 0;
constexpr Status k_not_supported = 2;
constexpr Status k_file_error = 3;
constexpr Status k_permission = 4;
constexpr Status k_input_out_of_bounds = 7;
constexpr Status k_init_error = 8;
constexpr Status k_not_yet_implemented = 9;
constexpr Status k_not_found = 10;
constexpr Status k_interrupt = 12;
constexpr Status k_unexpected_size = 13;
constexpr Status k_no_data = 14;
constexpr Status k_unexpected_data = 15;
constexpr Status k_busy = 16;
constexpr Status k_amdgpu_restart_err = 19;

using PowerType = std::uint32_t; // RSMI_POWER_TYPE: AVERAGE 0, CURRENT 1, INVALID 0xFFFFFFFF

// Entry points by their dlsym names. Optional ones are null when the library lacks them.
struct Api {
    Status (*init)(std::uint64_t flags);                   // rsmi_init
    Status (*shut_down)();                                 // rsmi_shut_down
    Status (*num_devices)(std::uint32_t*);                 // rsmi_num_monitor_devices
    Status (*pci_id)(std::uint32_t, std::uint64_t* bdfid); // rsmi_dev_pci_id_get
    Status (*name)(std::uint32_t, char*, std::size_t);     // optional: rsmi_dev_name_get
    // optional: raw counter × resolution (µJ per count); timestamp in ns
    Status (*energy_count)(std::uint32_t, std::uint64_t*, float*, std::uint64_t*);
    Status (*power)(std::uint32_t, std::uint64_t*, PowerType*);        // optional: µW (ROCm 6+)
    Status (*power_ave)(std::uint32_t, std::uint32_t, std::uint64_t*); // optional: µW
    Status (*busy_percent)(std::uint32_t, std::uint32_t*);             // optional: %
    Status (*power_cap)(std::uint32_t, std::uint32_t, std::uint64_t*); // optional: µW
};

// "NOT_SUPPORTED (2)": the enum name without its prefix, and the raw value.
[[nodiscard]] std::string status_text(Status s);

// How a failed call during sampling is treated. ROCm SMI reads sysfs underneath and maps
// errno: a vanished file (ENOENT) reads as NOT_SUPPORTED, ENXIO as UNEXPECTED_DATA, ESRCH as
// NOT_FOUND. A call that worked at discovery and now says so means the device went away.
[[nodiscard]] ReadStatus classify(Status s) noexcept;

// How ROCm SMI is found, loaded and initialised (see VendorSession). Its SONAME was not
// checked on a real install, hence several names.
struct Library {
    using Api = rocm_smi::Api;
    static constexpr std::string_view backend = "rocm_smi";
    static constexpr std::string_view none_measured = "no AMD GPUs measured through ROCm SMI";
    static constexpr std::string Host::*host_library = &Host::rocm_library;
    static constexpr std::array<std::string_view, 4> default_names{
        "librocm_smi64.so", "librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5"};
    static constexpr auto shutdown = &Api::shut_down;
    static void load(Symbols& symbols, Api& api);
    // rsmi_init(0).
    static Result<void> init(const Api& api);
    // rsmi_num_monitor_devices.
    static Result<unsigned int> count(const Api& api);
    static constexpr std::string_view no_gpus = "ROCm SMI reports no AMD GPUs";
};

// The library, loaded and initialised; rsmi_shut_down and dlclose on destruction. Shared
// by every GPU's sensor.
using Session = VendorSession<Library>;

} // namespace jp::sensors::rocm_smi
