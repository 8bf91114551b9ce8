// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// In-band IPMI: the Linux IPMI driver's character device (/dev/ipmi0,
// /dev/ipmi/0, /dev/ipmidev/0) and its ioctls, injectable so tests can stand
// in for the kernel and the BMC as perf RAPL's syscalls are.
#include "core/duration.hpp"
#include "core/error.hpp"
#include "sensors/ipmi/transport.hpp"

#include <filesystem>
#include <memory>
#include <vector>

struct ipmi_req;
struct ipmi_recv;

namespace jp::sensors::ipmi {

// The device's calls, as the kernel has them (each -1 with errno on failure).
struct DeviceApi {
    int (*open)(const char* path, int flags);
    int (*send)(int fd, ipmi_req* request);   // ioctl(IPMICTL_SEND_COMMAND)
    int (*receive)(int fd, ipmi_recv* reply); // ioctl(IPMICTL_RECEIVE_MSG_TRUNC)
    int (*wait)(int fd, int timeout_ms);      // poll for POLLIN: 1 ready, 0 timed out
    int (*close)(int fd);
};

[[nodiscard]] const DeviceApi& real_device_api() noexcept;

// Where the driver puts its device, in the order they are tried.
[[nodiscard]] std::vector<std::filesystem::path> default_device_paths();

// Opens the device (an error names the path: EACCES, ENOENT with the hint to
// load ipmi_devintf/ipmi_si). Each call sends one request to the BMC
// (system interface, BMC channel) and waits up to timeout for its reply;
// replies to other message ids are skipped.
[[nodiscard]] Result<std::unique_ptr<Transport>>
open_device(const std::filesystem::path& path, Nanos timeout, const DeviceApi* api = nullptr);

} // namespace jp::sensors::ipmi
