// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/connection.hpp"

#include <cerrno>
#include <sys/socket.h>

namespace jp::daemon {

bool Connection::flush() {
    while (out_sent < out.size()) {
        const auto n = ::send(fd.get(), out.data() + out_sent, out.size() - out_sent,
                              MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno == EAGAIN || errno == EWOULDBLOCK;
        }
        out_sent += static_cast<std::size_t>(n);
    }
    out.clear();
    out_sent = 0;
    return true;
}

} // namespace jp::daemon
