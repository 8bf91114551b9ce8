// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Every root and library a backend may touch. Nothing in src/sensors/ spells
// out "/sys/..." except joined under Host::sysfs_root.
#include <cstdint>
#include <filesystem>
#include <string>

struct perf_event_attr;

namespace jp {
struct Config;
}

namespace jp::sensors {

namespace ipmi {
struct DeviceApi; // the kernel IPMI device's calls (sensors/ipmi/), injectable for tests
}

// The perf_event syscalls, injectable so tests can stand in for the kernel.
struct PerfApi {
    // Returns an fd or -1 with errno set, like perf_event_open(2).
    int (*open)(perf_event_attr* attr, int pid, int cpu, int group_fd, unsigned long flags);
    // Reads the 64-bit count of an fd opened by open(); -1 with errno on failure.
    int (*read_count)(int fd, std::uint64_t* count);
    int (*close)(int fd);
};

[[nodiscard]] const PerfApi& real_perf_api() noexcept;

struct Host {
    std::filesystem::path sysfs_root{"/"}; // /sys and /proc are joined under it
    std::string nvml_library;              // path or name; empty: the usual sonames
    std::string rocm_library;
    std::filesystem::path replay_trace;           // a trace to play back as live channels
    const Config* config = nullptr;               // node model and overrides; may be null
    const PerfApi* perf = nullptr;                // null: the real syscalls
    const ipmi::DeviceApi* ipmi_device = nullptr; // null: open/ioctl/poll on /dev/ipmi*
    bool is_root = false;                         // effective uid 0 (for hints only)
    // jouleprofd's socket; empty: $JOULEPROF_SOCKET or /run/jouleprof/jouleprofd.sock.
    std::filesystem::path daemon_socket;
    bool use_daemon =
        true; // false in jouleprofd itself, and with [sensors.jouleprofd] enabled = false

    // A host whose sysfs/procfs live under root (tests use fake trees).
    [[nodiscard]] static Host with_root(std::filesystem::path root) {
        Host h;
        h.sysfs_root = std::move(root);
        return h;
    }
};

} // namespace jp::sensors
