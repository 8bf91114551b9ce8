// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One turn of a client connection: the requests it sent are served, at most
// Connection::k_requests_per_turn and only while its unread replies stay under
// its out_high mark; the rest wait for a later turn or for the client to read.
// The server's event loop and the connection fuzz target both use it.
#include "daemon/handlers.hpp"

#include <cstdint>

namespace jp::daemon {

// A request over the size limit gets
// its refusal and the connection marked closing. A closing connection (its
// client sent EOF) has this turn's requests answered and no later turn: the
// server serves only connections that are not closing.
struct Turn {
    int served = 0;             // requests answered
    std::size_t last_reply = 0; // bytes of the last reply queued (0: none)
};
Turn serve_turn(DaemonState& d, Connection& c, std::int64_t now_ns);

} // namespace jp::daemon
