// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/ipmi/device.hpp"

#include "sensors/ipmi/readings.hpp"

#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/ipmi.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace jp::sensors::ipmi {
namespace {

int real_open(const char* path, int flags) {
    return ::open(path, flags); // NOLINT(cppcoreguidelines-pro-type-vararg)
}
int real_send(int fd, ipmi_req* request) {
    return ::ioctl(fd, IPMICTL_SEND_COMMAND, request); // NOLINT(cppcoreguidelines-pro-type-vararg)
}
int real_receive(int fd, ipmi_recv* reply) {
    return ::ioctl(fd, IPMICTL_RECEIVE_MSG_TRUNC,
                   reply); // NOLINT(cppcoreguidelines-pro-type-vararg)
}
int real_wait(int fd, int timeout_ms) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, timeout_ms);
}
int real_close(int fd) {
    return ::close(fd);
}

constexpr DeviceApi k_real{real_open, real_send, real_receive, real_wait, real_close};

class DeviceTransport final : public Transport {
public:
    DeviceTransport(std::filesystem::path path, int fd, Nanos timeout, const DeviceApi& api)
        : m_path(std::move(path)), m_fd(fd), m_timeout(timeout), m_api(api) {}
    ~DeviceTransport() override { m_api.close(m_fd); }
    DeviceTransport(const DeviceTransport&) = delete;
    DeviceTransport& operator=(const DeviceTransport&) = delete;
    DeviceTransport(DeviceTransport&&) = delete;
    DeviceTransport& operator=(DeviceTransport&&) = delete;

    Result<Response> call(const Request& request) override;
    [[nodiscard]] std::string describe() const override {
        return fmt::format("in-band {}", m_path.string());
    }

private:
    Result<Response> receive(long msgid);

    std::filesystem::path m_path;
    int m_fd;
    Nanos m_timeout;
    const DeviceApi& m_api;
    long m_next_id = 1;
};

Result<Response> DeviceTransport::call(const Request& request) {
    ipmi_system_interface_addr addr{};
    addr.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE;
    addr.channel = IPMI_BMC_CHANNEL;
    addr.lun = request.lun;
    std::vector<std::uint8_t> data = request.data; // the kernel's struct wants a non-const pointer
    ipmi_req req{};
    req.addr = reinterpret_cast<unsigned char*>(
        &addr); // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
    req.addr_len = sizeof addr;
    req.msgid = m_next_id++;
    req.msg.netfn = request.netfn;
    req.msg.cmd = request.cmd;
    req.msg.data = data.data();
    req.msg.data_len = static_cast<unsigned short>(data.size());
    if (m_api.send(m_fd, &req) != 0) {
        return std::unexpected(
            errno_error(errno, fmt::format("{}: IPMICTL_SEND_COMMAND (NetFn 0x{:02X} cmd 0x{:02X})",
                                           m_path.string(), request.netfn, request.cmd)));
    }
    return receive(req.msgid);
}

Result<Response> DeviceTransport::receive(long msgid) {
    const auto deadline = std::chrono::steady_clock::now() + m_timeout;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        const int ready = left.count() > 0 ? m_api.wait(m_fd, static_cast<int>(left.count())) : 0;
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready < 0) {
            return std::unexpected(errno_error(errno, m_path.string() + ": poll"));
        }
        if (ready == 0) {
            return fail(
                ErrorKind::io, m_path.string(),
                fmt::format(
                    "no reply from the BMC within {} ms",
                    std::chrono::duration_cast<std::chrono::milliseconds>(m_timeout).count()),
                "the BMC may be busy or resetting; raise [sensors.ipmi] timeout");
        }
        ipmi_addr addr{};
        std::array<std::uint8_t, IPMI_MAX_MSG_LENGTH> buf{};
        ipmi_recv recv{};
        recv.addr = reinterpret_cast<unsigned char*>(
            &addr); // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
        recv.addr_len = sizeof addr;
        recv.msg.data = buf.data();
        recv.msg.data_len = static_cast<unsigned short>(buf.size());
        if (m_api.receive(m_fd, &recv) != 0) {
            if (errno == EAGAIN || errno == EINTR) {
                continue;
            }
            // EMSGSIZE: the reply was cut to fit the buffer; the kernel still fills it.
            if (errno != EMSGSIZE) {
                return std::unexpected(
                    errno_error(errno, m_path.string() + ": IPMICTL_RECEIVE_MSG_TRUNC"));
            }
        }
        if (recv.recv_type != IPMI_RESPONSE_RECV_TYPE || recv.msgid != msgid) {
            continue; // an event, or a late reply to a request that timed out
        }
        const std::size_t n = std::min<std::size_t>(recv.msg.data_len, buf.size());
        if (n == 0) {
            return fail(ErrorKind::parse, m_path.string(), "a reply without a completion code");
        }
        Response r;
        r.completion = buf[0];
        r.data.assign(buf.begin() + 1, buf.begin() + static_cast<std::ptrdiff_t>(n));
        return r;
    }
}

} // namespace

const DeviceApi& real_device_api() noexcept {
    return k_real;
}

std::vector<std::filesystem::path> default_device_paths() {
    return {"/dev/ipmi0", "/dev/ipmi/0", "/dev/ipmidev/0"};
}

Result<std::unique_ptr<Transport>>
open_device(const std::filesystem::path& path, Nanos timeout, const DeviceApi* api) {
    const DeviceApi& a = api != nullptr ? *api : k_real;
    const int fd = a.open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        auto e = errno_error(errno, path.string());
        if (e.kind == ErrorKind::permission) {
            e.hint = "the IPMI device is root's: run jouleprofd (it serves the BMC's reading "
                     "to every user) or ask the admin for access";
        } else if (e.kind == ErrorKind::not_found) {
            e.hint = "no in-band IPMI here: load ipmi_devintf and ipmi_si, or read the BMC "
                     "out-of-band ([sensors.ipmi] host)";
        }
        return std::unexpected(std::move(e));
    }
    return std::make_unique<DeviceTransport>(path, fd, timeout, a);
}

} // namespace jp::sensors::ipmi
