// SPDX-License-Identifier: BSD-3-Clause
// jouleprofd's connection handling under a client that pipelines: the input is
// cut into reads (the first byte says how long, 1 byte to 32 KiB, whether the
// client ever reads its replies, and whether it is root), each taken as the
// event loop takes it (only while no request waits and the unread replies are
// under the high mark) and served one turn at a time through serve_turn, the
// server's own code. The connection's bounds are the daemon's scaled down (a
// 512-byte request limit, a 4 KiB high mark) so that short inputs reach them.
// Each turn must answer at most k_requests_per_turn requests, none while the
// unread replies are over the high mark (the high mark plus one reply at most),
// and hold no more input than twice the request limit and one read. At the end
// every reply is one JSON object on its own line, one per request answered.
#include "daemon/serve.hpp"
#include "daemon_engine.hpp"
#include "fuzz_input.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace {

using jp::daemon::Connection;

// What the client has read of its replies so far (all of it when asked).
void read_replies(int fd, std::string& into) {
    char buf[65536];
    for (;;) {
        const auto n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n <= 0) {
            return;
        }
        into.append(buf, static_cast<std::size_t>(n));
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace jp::daemon;
    if (size < 2) {
        return 0;
    }
    const std::size_t chunk = std::size_t{1} << (data[0] & 0x0fU); // 1 B .. 32 KiB per read
    const bool reads_replies = (data[0] & 0x10U) != 0;
    const uid_t uid = (data[0] & 0x20U) != 0 ? 0 : 1000; // root or a floored user
    const auto input = jp::fuzz::bytes(data + 1, size - 1);

    DaemonState state{{}, jp::fuzz::daemon_engine(), {}, {}, {}, 0, 0};
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        return 0;
    }
    const int small = 4096; // the socket takes little, so replies wait in the daemon
    ::setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    const jp::sys::UniqueFd peer{sv[1]};
    constexpr std::size_t request_limit = 512;
    Connection c{1, jp::sys::UniqueFd{sv[0]}, Connection::Kind::client, request_limit};
    c.out_high = 4096;
    c.peer = jp::sys::PeerCredentials{::getpid(), uid, uid, {}};

    std::string replies;
    std::size_t pos = 0;
    std::size_t answered = 0;
    std::int64_t now = 1'000'000'000;
    for (int turn = 0; turn < 100'000 && !c.closing; ++turn) {
        const bool waiting = c.in.has_line();
        const bool room = c.pending_out() < c.out_high;
        if (!waiting && room && pos < input.size()) { // readable: one read's worth comes in
            const auto n = std::min(chunk, input.size() - pos);
            c.in.append(input.substr(pos, n));
            pos += n;
        } else if (!room && reads_replies) { // writable: the client read some replies
            read_replies(peer.get(), replies);
            if (!c.flush()) {
                std::abort();
            }
            continue;
        } else if (!waiting || !room) {
            break; // the event loop would wait here for the client
        }
        const auto before = c.pending_out();
        const auto t = serve_turn(state, c, now += 1'000'000);
        answered += static_cast<std::size_t>(t.served);
        if (t.served > Connection::k_requests_per_turn || (t.served > 0 && before >= c.out_high) ||
            c.pending_out() >= c.out_high + t.last_reply ||
            c.in.held() > 2 * request_limit + chunk) {
            std::abort();
        }
    }
    // Everything the daemon sent or still holds, as the client would read it in the end.
    while (c.pending_out() > 0) {
        read_replies(peer.get(), replies);
        if (!c.flush()) {
            std::abort();
        }
    }
    read_replies(peer.get(), replies);
    std::size_t lines = 0;
    for (std::size_t from = 0; from < replies.size();) {
        const auto nl = replies.find('\n', from);
        if (nl == std::string::npos ||
            !nlohmann::json::accept(std::string_view{replies}.substr(from, nl - from))) {
            std::abort();
        }
        ++lines;
        from = nl + 1;
    }
    // One reply per request answered, and one refusal for a request over the limit.
    if (lines != answered + (c.in.oversized() ? 1U : 0U)) {
        std::abort();
    }
    return 0;
}
