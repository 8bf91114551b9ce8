// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/nvml/api.hpp"

#include <fmt/format.h>
#include <string_view>

namespace jp::sensors::nvml {
namespace {

std::string_view return_name(Return r) {
    switch (r) {
    case k_success:
        return "SUCCESS";
    case k_uninitialized:
        return "UNINITIALIZED";
    case 2:
        return "INVALID_ARGUMENT";
    case k_not_supported:
        return "NOT_SUPPORTED";
    case k_no_permission:
        return "NO_PERMISSION";
    case 5:
        return "ALREADY_INITIALIZED";
    case k_not_found:
        return "NOT_FOUND";
    case k_insufficient_size:
        return "INSUFFICIENT_SIZE";
    case 8:
        return "INSUFFICIENT_POWER";
    case k_driver_not_loaded:
        return "DRIVER_NOT_LOADED";
    case k_timeout:
        return "TIMEOUT";
    case 11:
        return "IRQ_ISSUE";
    case 12:
        return "LIBRARY_NOT_FOUND";
    case 13:
        return "FUNCTION_NOT_FOUND";
    case 14:
        return "CORRUPTED_INFOROM";
    case k_gpu_is_lost:
        return "GPU_IS_LOST";
    case 16:
        return "RESET_REQUIRED";
    case 17:
        return "OPERATING_SYSTEM";
    case 18:
        return "LIB_RM_VERSION_MISMATCH";
    case k_in_use:
        return "IN_USE";
    case 20:
        return "MEMORY";
    case k_no_data:
        return "NO_DATA";
    case k_not_ready:
        return "NOT_READY";
    case k_gpu_not_found:
        return "GPU_NOT_FOUND";
    case 29:
        return "INVALID_STATE";
    default:
        return "UNKNOWN";
    }
}

} // namespace

std::string return_text(Return r) {
    return fmt::format("{} ({})", return_name(r), r);
}

ReadStatus classify(Return r) noexcept {
    switch (r) {
    case k_success:
        return ReadStatus::ok;
    case k_gpu_is_lost:
    case k_gpu_not_found:
    case k_not_found:
        return ReadStatus::gone;
    case k_timeout:
    case k_no_data:
    case k_not_ready:
    case k_in_use:
        return ReadStatus::retry;
    default:
        return ReadStatus::fatal;
    }
}

void Library::load(Symbols& symbols, Api& api) {
    symbols.required(api.init, "nvmlInit_v2");
    symbols.required(api.shutdown, "nvmlShutdown");
    symbols.required(api.get_count, "nvmlDeviceGetCount_v2");
    symbols.required(api.get_handle, "nvmlDeviceGetHandleByIndex_v2");
    symbols.required(api.get_pci_info, "nvmlDeviceGetPciInfo_v3");
    symbols.required(api.get_name, "nvmlDeviceGetName");
    symbols.required(api.get_power_usage, "nvmlDeviceGetPowerUsage");
    symbols.optional(api.get_total_energy, "nvmlDeviceGetTotalEnergyConsumption");
    symbols.optional(api.get_field_values, "nvmlDeviceGetFieldValues");
    symbols.optional(api.get_utilization, "nvmlDeviceGetUtilizationRates");
    symbols.optional(api.get_enforced_limit, "nvmlDeviceGetEnforcedPowerLimit");
    symbols.optional(api.get_compute_processes, "nvmlDeviceGetComputeRunningProcesses_v3");
}

Result<void> Library::init(const Api& api) {
    if (const Return r = api.init(); r != k_success) {
        return fail(ErrorKind::library, "nvmlInit_v2", return_text(r),
                    r == k_driver_not_loaded ? "is the nvidia kernel module loaded?" : "");
    }
    return {};
}

Result<unsigned int> Library::count(const Api& api) {
    unsigned int count = 0;
    if (const Return r = api.get_count(&count); r != k_success) {
        return fail(ErrorKind::library, "nvmlDeviceGetCount_v2", return_text(r));
    }
    return count;
}

} // namespace jp::sensors::nvml
