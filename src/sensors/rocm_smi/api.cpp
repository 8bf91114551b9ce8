// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/rocm_smi/api.hpp"

#include <fmt/format.h>
#include <string_view>

namespace jp::sensors::rocm_smi {
namespace {

std::string_view status_name(Status s) {
    switch (s) {
    case k_success:
        return "SUCCESS";
    case 1:
        return "INVALID_ARGS";
    case k_not_supported:
        return "NOT_SUPPORTED";
    case k_file_error:
        return "FILE_ERROR";
    case k_permission:
        return "PERMISSION";
    case 5:
        return "OUT_OF_RESOURCES";
    case 6:
        return "INTERNAL_EXCEPTION";
    case k_input_out_of_bounds:
        return "INPUT_OUT_OF_BOUNDS";
    case k_init_error:
        return "INIT_ERROR";
    case k_not_yet_implemented:
        return "NOT_YET_IMPLEMENTED";
    case k_not_found:
        return "NOT_FOUND";
    case 11:
        return "INSUFFICIENT_SIZE";
    case k_interrupt:
        return "INTERRUPT";
    case k_unexpected_size:
        return "UNEXPECTED_SIZE";
    case k_no_data:
        return "NO_DATA";
    case k_unexpected_data:
        return "UNEXPECTED_DATA";
    case k_busy:
        return "BUSY";
    case 17:
        return "REFCOUNT_OVERFLOW";
    case 18:
        return "SETTING_UNAVAILABLE";
    case k_amdgpu_restart_err:
        return "AMDGPU_RESTART_ERR";
    default:
        return "UNKNOWN_ERROR";
    }
}

} // namespace

std::string status_text(Status s) {
    return fmt::format("{} ({})", status_name(s), s);
}

ReadStatus classify(Status s) noexcept {
    switch (s) {
    case k_success:
        return ReadStatus::ok;
    case k_not_supported: // ENOENT: the sysfs file went away with the device
    case k_not_found:     // ESRCH
    case k_input_out_of_bounds:
    case k_unexpected_data: // ENXIO
    case k_amdgpu_restart_err:
        return ReadStatus::gone;
    case k_interrupt: // EINTR
    case k_busy:      // EBUSY
    case k_no_data:
    case k_unexpected_size: // EIO, often a torn read while the SMU updates
        return ReadStatus::retry;
    default:
        return ReadStatus::fatal;
    }
}

void Library::load(Symbols& symbols, Api& api) {
    symbols.required(api.init, "rsmi_init");
    symbols.required(api.shut_down, "rsmi_shut_down");
    symbols.required(api.num_devices, "rsmi_num_monitor_devices");
    symbols.required(api.pci_id, "rsmi_dev_pci_id_get");
    symbols.optional(api.name, "rsmi_dev_name_get");
    symbols.optional(api.energy_count, "rsmi_dev_energy_count_get");
    symbols.optional(api.power, "rsmi_dev_power_get");
    symbols.optional(api.power_ave, "rsmi_dev_power_ave_get");
    symbols.optional(api.busy_percent, "rsmi_dev_busy_percent_get");
    symbols.optional(api.power_cap, "rsmi_dev_power_cap_get");
}

Result<void> Library::init(const Api& api) {
    if (const Status s = api.init(0); s != k_success) {
        return fail(ErrorKind::library, "rsmi_init", status_text(s),
                    "is the amdgpu kernel module loaded?");
    }
    return {};
}

Result<unsigned int> Library::count(const Api& api) {
    std::uint32_t count = 0;
    if (const Status s = api.num_devices(&count); s != k_success) {
        return fail(ErrorKind::library, "rsmi_num_monitor_devices", status_text(s));
    }
    return count;
}

} // namespace jp::sensors::rocm_smi
