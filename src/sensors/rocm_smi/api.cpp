#include "sensors/rocm_smi/api.hpp"

#include <fmt/format.h>
#include <string_view>
#include <vector>

namespace jp::sensors::rocm_smi {
namespace {

constexpr std::string_view k_none_measured = "no AMD GPUs measured through ROCm SMI";

std::vector<std::string> library_names(const Host& host) {
    if (!host.rocm_library.empty()) {
        return {host.rocm_library};
    }
    return {"librocm_smi64.so", "librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5"};
}

// Absent optional entry points stay null; the backend then falls back or skips a channel.
template <class Fn> void optional(const sys::DynamicLibrary& lib, Fn& fn, const char* name) {
    auto sym = lib.symbol<Fn>(name);
    fn = sym ? *sym : nullptr;
}

Result<Api> load_api(const sys::DynamicLibrary& lib) {
    Api api{};
    std::string missing; // the first required symbol not found, as DynamicLibrary words it
    const auto required = [&]<class Fn>(Fn& fn, const char* name) {
        if (auto sym = lib.symbol<Fn>(name)) {
            fn = *sym;
        } else if (missing.empty()) {
            missing = sym.error().message();
        }
    };
    required(api.init, "rsmi_init");
    required(api.shut_down, "rsmi_shut_down");
    required(api.num_devices, "rsmi_num_monitor_devices");
    required(api.pci_id, "rsmi_dev_pci_id_get");
    if (!missing.empty()) {
        return fail(ErrorKind::unsupported, "rocm_smi", missing);
    }
    optional(lib, api.name, "rsmi_dev_name_get");
    optional(lib, api.energy_count, "rsmi_dev_energy_count_get");
    optional(lib, api.power, "rsmi_dev_power_get");
    optional(lib, api.power_ave, "rsmi_dev_power_ave_get");
    optional(lib, api.busy_percent, "rsmi_dev_busy_percent_get");
    optional(lib, api.power_cap, "rsmi_dev_power_cap_get");
    return api;
}

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

Result<std::shared_ptr<const Session>> Session::open(const Host& host) {
    const auto names = library_names(host);
    auto lib = sys::DynamicLibrary::open(names);
    if (!lib) {
        return fail(ErrorKind::not_found, "rocm_smi",
                    fmt::format("{} not found: {} ({})", names.front(), k_none_measured,
                                lib.error().detail));
    }
    auto api = load_api(*lib);
    if (!api) {
        return fail(ErrorKind::unsupported, "rocm_smi",
                    fmt::format("{}: {}", api.error().detail, k_none_measured));
    }
    if (const Status s = api->init(0); s != k_success) {
        return fail(ErrorKind::library, "rocm_smi",
                    fmt::format("rsmi_init failed: {}: {}", status_text(s), k_none_measured),
                    "is the amdgpu kernel module loaded?");
    }
    return std::shared_ptr<const Session>(new Session(std::move(*lib), *api));
}

Session::~Session() {
    m_api.shut_down();
}

} // namespace jp::sensors::rocm_smi
