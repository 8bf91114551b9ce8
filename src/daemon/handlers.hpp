// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The protocol's operations (docs/daemon-protocol.md): one request line in,
// one reply line out, on the daemon's single I/O thread.
#include "daemon/accounts.hpp"
#include "daemon/connection.hpp"
#include "daemon/engine.hpp"
#include "daemon/sessions.hpp"
#include "daemon/spacing.hpp"

#include <string>

namespace jp::daemon {

// Everything the handlers see; owned by the server.
struct DaemonState {
    DaemonConfig config; // [access] is replaced on SIGHUP
    Engine& engine;
    SessionTable sessions;
    EdgeBudget budget;
    ExactReadSpacing spacing; // floored callers' last exact reads
    std::int64_t started_ns = 0;
    std::size_t clients = 0; // protocol connections open now
    CallBudget ledger_calls{
        CallBudget::k_view_burst,
        CallBudget::k_views_per_second}; // per uid: the ledger's views walk every kept job
    CallBudget session_opens{CallBudget::k_open_burst,
                             CallBudget::k_opens_per_second}; // per uid: each a ledger's job
    // Every job's share, where [prometheus] per_job asks for it (daemon/accounts.hpp).
    std::unique_ptr<Accounts> accounts = nullptr;
    std::uint64_t accounts_chosen = 0;    // the engine's last window they read CPU time for
    std::uint64_t accounts_published = 0; // and the last one published
};

// Feeds the accounts after the engine's tick: the CPU time when a window is chosen, the
// split when one is published (idle power from the config, else as /metrics shows it).
void feed_accounts(DaemonState& d, std::int64_t now_ns);

// A request line to its reply line (ending in '\n'); sets c.closing when the
// connection must end after the reply.
[[nodiscard]] std::string
handle_line(DaemonState& d, Connection& c, std::string_view line, std::int64_t now_ns);

// Whether a caller with grant g may see channel i's learned idle power: a floored caller
// only where its periods are no shorter than the floor and its jitter (docs/security.md).
[[nodiscard]] bool idle_shown(const DaemonState& d, Grant g, std::size_t i);

// Replies that are not answers to a request: a line too long (then the
// connection closes), the daemon full, the daemon stopping.
[[nodiscard]] std::string refusal_line(ErrorCode code, std::string_view message);

// What a caller with grant g sees of channel i: the history, or the floored
// publications (a restricted channel for a caller without full access).
[[nodiscard]] const History& view_of(const Engine& engine, Grant g, std::size_t i);

// The stream event due for s at now_ns, or "" when none is due or there is
// nothing new; advances the session's stream position.
[[nodiscard]] std::string stream_event(DaemonState& d, Session& s, std::int64_t now_ns);

} // namespace jp::daemon
