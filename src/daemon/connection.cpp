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
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                return false;
            }
            // What was sent leaves the buffer, so a client that reads slowly but never
            // all of it cannot make the buffer grow by everything ever sent.
            if (out_sent >= k_compact_after && out_sent * 2 >= out.size()) {
                out.erase(0, out_sent);
                out_sent = 0;
            }
            return true;
        }
        out_sent += static_cast<std::size_t>(n);
    }
    out.clear();
    out_sent = 0;
    return true;
}

void Connection::send(std::string_view bytes) {
    queue(bytes);
    if (!flush()) {
        closing = true;
        out.clear();
        out_sent = 0;
    }
}

} // namespace jp::daemon
