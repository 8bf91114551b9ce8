// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The slice of the NVML C ABI this backend uses, declared here (no vendor header), and the
// loaded library with NVML initialised. Prototypes, values and layouts follow nvml.h
// (NVML_API_VERSION 13), see research/vendor-apis.md; the static_asserts pin the layouts.
#include "core/error.hpp"
#include "sensors/host.hpp"
#include "sensors/sensor.hpp"
#include "sensors/vendor_library.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace jp::sensors::nvml {

using Return = unsigned int; // nvmlReturn_t: a 4-byte C enum

constexpr Return k_success = 0;
constexpr Return k_uninitialized = 1;
constexpr Return k_not_supported = 3;
constexpr Return k_no_permission = 4;
constexpr Return k_not_found = 6;
constexpr Return k_insufficient_size = 7;
constexpr Return k_driver_not_loaded = 9;
constexpr Return k_timeout = 10;
constexpr Return k_gpu_is_lost = 15;
constexpr Return k_in_use = 19;
constexpr Return k_no_data = 21;
constexpr Return k_not_ready = 27;
constexpr Return k_gpu_not_found = 28;

constexpr unsigned k_field_power_instant = 186; // NVML_FI_DEV_POWER_INSTANT, mW
constexpr unsigned k_scope_gpu = 0;             // scopeId 0: GPU only

struct DeviceSt;
using Device = DeviceSt*; // nvmlDevice_t, opaque

struct PciInfo {                        // nvmlPciInfo_t (v3)
    std::array<char, 16> bus_id_legacy; // "%04X:%02X:%02X.0"
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pci_device_id;
    unsigned int pci_subsystem_id;
    std::array<char, 32> bus_id; // "%08X:%02X:%02X.0"
};
static_assert(sizeof(PciInfo) == 68 && offsetof(PciInfo, domain) == 16);
static_assert(offsetof(PciInfo, bus_id) == 36);

struct Utilization { // nvmlUtilization_t, percent over the last sample period
    unsigned int gpu;
    unsigned int memory;
};
static_assert(sizeof(Utilization) == 8);

// nvmlValueType_t: which member of FieldValue::value the library filled.
enum class ValueType : unsigned int { f64, u32, ulong, u64, i64, i32, u16 };

union FieldNumber { // nvmlValue_t
    double d;
    int si;
    unsigned int ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    unsigned short us;
};

struct FieldValue { // nvmlFieldValue_t: set field_id and scope_id before the call
    unsigned int field_id;
    unsigned int scope_id;
    long long timestamp_us; // CPU time, µs since 1970
    long long latency_us;
    ValueType value_type;
    Return nvml_return; // per entry: check it even when the call succeeded
    FieldNumber value;
};
static_assert(sizeof(FieldValue) == 40 && offsetof(FieldValue, value_type) == 24);
static_assert(offsetof(FieldValue, nvml_return) == 28 && offsetof(FieldValue, value) == 32);

struct ProcessInfo { // nvmlProcessInfo_t (v2), what nvmlDeviceGetComputeRunningProcesses_v3 fills
    unsigned int pid;
    unsigned long long used_memory; // bytes; ~0ULL: not available
    unsigned int gpu_instance;      // 0xFFFFFFFF when not MIG
    unsigned int compute_instance;
};
static_assert(sizeof(ProcessInfo) == 24 && offsetof(ProcessInfo, used_memory) == 8);
static_assert(offsetof(ProcessInfo, gpu_instance) == 16);

// Entry points, by the suffixed names dlsym sees. Optional ones are null when absent.
struct Api {
    Return (*init)();                                        // nvmlInit_v2
    Return (*shutdown)();                                    // nvmlShutdown
    Return (*get_count)(unsigned int*);                      // nvmlDeviceGetCount_v2
    Return (*get_handle)(unsigned int, Device*);             // nvmlDeviceGetHandleByIndex_v2
    Return (*get_pci_info)(Device, PciInfo*);                // nvmlDeviceGetPciInfo_v3
    Return (*get_name)(Device, char*, unsigned int);         // nvmlDeviceGetName
    Return (*get_power_usage)(Device, unsigned int*);        // mW; 1 s average on Ampere+
    Return (*get_total_energy)(Device, unsigned long long*); // optional; mJ, Volta+
    Return (*get_field_values)(Device, int, FieldValue*);    // optional
    Return (*get_utilization)(Device, Utilization*);         // optional; percent
    Return (*get_enforced_limit)(Device, unsigned int*);     // optional; mW
    // optional; nvmlDeviceGetComputeRunningProcesses_v3: ProcessInfo entries, or 32-byte ones
    // from R535 drivers (sensors/nvml/processes.hpp), so the buffer is bytes
    Return (*get_compute_processes)(Device, unsigned int*, void*);
};

// "NOT_SUPPORTED (3)": the enum name without its prefix, and the raw value.
[[nodiscard]] std::string return_text(Return r);

// How a failed call during sampling is treated: lost devices are gone, busy ones retry.
[[nodiscard]] ReadStatus classify(Return r) noexcept;

// How NVML is found, loaded and initialised (see VendorSession).
struct Library {
    using Api = nvml::Api;
    static constexpr std::string_view backend = "nvml";
    static constexpr std::string_view none_measured = "no NVIDIA GPUs measured";
    static constexpr std::string Host::*host_library = &Host::nvml_library;
    static constexpr std::array<std::string_view, 2> default_names{"libnvidia-ml.so.1",
                                                                   "libnvidia-ml.so"};
    static constexpr auto shutdown = &Api::shutdown;
    static void load(Symbols& symbols, Api& api);
    // nvmlInit_v2 (DRIVER_NOT_LOADED comes with a hint).
    static Result<void> init(const Api& api);
    // nvmlDeviceGetCount_v2.
    static Result<unsigned int> count(const Api& api);
    static constexpr std::string_view no_gpus = "the driver reports no NVIDIA GPUs";
};

// The library, loaded and initialised; nvmlShutdown and dlclose on destruction. Shared by
// every GPU's sensor so that NVML stays initialised while any of them lives.
using Session = VendorSession<Library>;

} // namespace jp::sensors::nvml
