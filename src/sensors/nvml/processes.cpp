// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/nvml/processes.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

namespace jp::sensors::nvml {

std::optional<Processes> Processes::open(const Host& host, std::string& why) {
    auto session = Session::open(host);
    if (!session) {
        why = session.error().message();
        return std::nullopt;
    }
    const auto& api = (*session)->api();
    if (api.get_compute_processes == nullptr) {
        why = "nvml: nvmlDeviceGetComputeRunningProcesses_v3 is missing (a driver before 510)";
        return std::nullopt;
    }
    const auto count = Library::count(api);
    if (!count) {
        why = fmt::format("nvml: {}", count.error().message());
        return std::nullopt;
    }
    Processes p;
    p.m_session = std::move(*session);
    for (unsigned int i = 0; i < *count && i < 4096; ++i) {
        Device d = nullptr;
        p.m_devices.push_back(api.get_handle(i, &d) == k_success ? d : nullptr);
    }
    return p;
}

std::vector<int> Processes::gpus() const {
    std::vector<int> out;
    for (std::size_t i = 0; i < m_devices.size(); ++i) {
        if (m_devices[i] != nullptr) {
            out.push_back(static_cast<int>(i));
        }
    }
    return out;
}

std::optional<std::size_t> entry_stride(std::span<const unsigned char> bytes, unsigned int count) {
    if (count == 0) {
        return std::nullopt;
    }
    // The driver wrote count entries over a buffer filled with k_unwritten: the last byte
    // it wrote ends the last entry. Its last field is computeInstanceId (0xFFFFFFFF when
    // not MIG) in the 24-byte layout, usedGpuCcProtectedMemory's high byte (0 below
    // 2^56 bytes) in the 32-byte one, so never k_unwritten there.
    std::size_t written = bytes.size();
    while (written > 0 && bytes[written - 1] == k_unwritten) {
        --written;
    }
    for (const std::size_t stride : {sizeof(ProcessInfo), k_process_info_v3_size}) {
        if (written == stride * count) {
            return stride;
        }
    }
    return std::nullopt;
}

std::optional<std::vector<pid_t>> Processes::pids(int index) const {
    if (index < 0 || static_cast<std::size_t>(index) >= m_devices.size() ||
        m_devices[static_cast<std::size_t>(index)] == nullptr) {
        return std::nullopt;
    }
    auto* const device = m_devices[static_cast<std::size_t>(index)];
    const auto& api = m_session->api();
    // Asked for the count first; processes may start between the two calls, so a few more
    // places, and again while the list outgrows them. Each place has room for the larger
    // layout, so a driver that writes it never writes past the buffer.
    unsigned int n = 0;
    Return r = api.get_compute_processes(device, &n, nullptr);
    for (int attempt = 0; attempt < 4 && r == k_insufficient_size; ++attempt) {
        const unsigned int places = std::min(n, 1U << 16) + 8U;
        std::vector<unsigned char> bytes(std::size_t{places} * k_process_info_v3_size, k_unwritten);
        n = places;
        r = api.get_compute_processes(device, &n, bytes.data());
        if (r != k_success) {
            continue;
        }
        n = std::min(n, places);
        const auto stride = entry_stride(bytes, n);
        if (!stride) {
            return std::nullopt; // a layout this build does not know: no guess
        }
        std::vector<pid_t> out;
        for (unsigned int k = 0; k < n; ++k) {
            unsigned int pid = 0;
            std::memcpy(&pid, bytes.data() + std::size_t{k} * *stride, sizeof pid);
            out.push_back(static_cast<pid_t>(pid));
        }
        return out;
    }
    if (r == k_success) {
        return std::vector<pid_t>{}; // none
    }
    return std::nullopt;
}

} // namespace jp::sensors::nvml
