// SPDX-License-Identifier: BSD-3-Clause
// Request lines any local user can send jouleprofd, through the same line
// framing and handlers as the daemon, on a daemon whose engine reads a small
// powercap tree made once per process (daemon_engine.hpp). Every input is a fresh connection of a
// fresh daemon state (sessions do not carry over, so a crash reproduces).
#include "daemon/handlers.hpp"
#include "daemon_engine.hpp"
#include "fuzz_input.hpp"

#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace jp::daemon;
    DaemonState state{{}, jp::fuzz::daemon_engine(), {}, {}, {}, 0, 0};
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        return 0;
    }
    const jp::sys::UniqueFd peer{sv[1]};
    Connection c{1, jp::sys::UniqueFd{sv[0]}, Connection::Kind::client, k_max_request_bytes};
    c.peer = jp::sys::PeerCredentials{::getpid(), ::getuid(), ::getgid(), {}};
    c.in.append(jp::fuzz::bytes(data, size));
    std::int64_t now = 0;
    while (!c.closing) {
        auto line = c.in.next();
        if (!line) {
            break;
        }
        const auto reply = handle_line(state, c, *line, now += 1'000'000);
        // Every reply is one JSON object on one line.
        if (reply.empty() || reply.back() != '\n' || reply.find('\n') != reply.size() - 1 ||
            !nlohmann::json::accept(std::string_view{reply}.substr(0, reply.size() - 1))) {
            std::abort();
        }
    }
    return 0;
}
