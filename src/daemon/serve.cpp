// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/serve.hpp"

#include <fmt/format.h>

namespace jp::daemon {

Turn serve_turn(DaemonState& d, Connection& c, std::int64_t now_ns) {
    Turn t;
    while (t.served < Connection::k_requests_per_turn && c.pending_out() < c.out_high &&
           c.in.has_line()) {
        if (const auto line = c.in.next(); line && !line->empty()) {
            const auto reply = handle_line(d, c, *line, now_ns);
            c.send(reply);
            t.last_reply = reply.size();
            ++t.served;
        }
    }
    if (!c.in.has_line() && c.in.oversized() && !c.said_too_large) {
        const auto refusal =
            refusal_line(ErrorCode::too_large,
                         fmt::format("a request may be at most {} bytes long", c.in.limit()));
        c.send(refusal);
        t.last_reply = refusal.size();
        c.said_too_large = true;
        c.closing = true;
    }
    const bool partial = c.in.partial() && !c.in.has_line();
    c.partial_since_ns = partial ? (c.partial_since_ns != 0 ? c.partial_since_ns : now_ns) : 0;
    return t;
}

} // namespace jp::daemon
