#include "sensors/nvml/api.hpp"

#include <fmt/format.h>
#include <string_view>
#include <vector>

namespace jp::sensors::nvml {
namespace {

constexpr std::string_view k_none_measured = "no NVIDIA GPUs measured";

std::vector<std::string> library_names(const Host& host) {
    if (!host.nvml_library.empty()) {
        return {host.nvml_library};
    }
    return {"libnvidia-ml.so.1", "libnvidia-ml.so"};
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
    required(api.init, "nvmlInit_v2");
    required(api.shutdown, "nvmlShutdown");
    required(api.get_count, "nvmlDeviceGetCount_v2");
    required(api.get_handle, "nvmlDeviceGetHandleByIndex_v2");
    required(api.get_pci_info, "nvmlDeviceGetPciInfo_v3");
    required(api.get_name, "nvmlDeviceGetName");
    required(api.get_power_usage, "nvmlDeviceGetPowerUsage");
    if (!missing.empty()) {
        return fail(ErrorKind::unsupported, "nvml", missing);
    }
    optional(lib, api.get_total_energy, "nvmlDeviceGetTotalEnergyConsumption");
    optional(lib, api.get_field_values, "nvmlDeviceGetFieldValues");
    optional(lib, api.get_utilization, "nvmlDeviceGetUtilizationRates");
    optional(lib, api.get_enforced_limit, "nvmlDeviceGetEnforcedPowerLimit");
    return api;
}

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

Result<std::shared_ptr<const Session>> Session::open(const Host& host) {
    const auto names = library_names(host);
    auto lib = sys::DynamicLibrary::open(names);
    if (!lib) {
        return fail(ErrorKind::not_found, "nvml",
                    fmt::format("{} not found: {} ({})", names.front(), k_none_measured,
                                lib.error().detail));
    }
    auto api = load_api(*lib);
    if (!api) {
        return fail(ErrorKind::unsupported, "nvml",
                    fmt::format("{}: {}", api.error().detail, k_none_measured));
    }
    if (const Return r = api->init(); r != k_success) {
        return fail(ErrorKind::library, "nvml",
                    fmt::format("nvmlInit_v2 failed: {}: {}", return_text(r), k_none_measured),
                    r == k_driver_not_loaded ? "is the nvidia kernel module loaded?" : "");
    }
    return std::shared_ptr<const Session>(new Session(std::move(*lib), *api));
}

Session::~Session() {
    m_api.shutdown();
}

} // namespace jp::sensors::nvml
