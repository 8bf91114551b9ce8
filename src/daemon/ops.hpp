// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the protocol's operations share (src/daemon/handlers*.cpp only): a
// refusal, a field read with its checks, the session a request names, and
// each operation's entry for the dispatch table in handlers.cpp.
#include "daemon/handlers.hpp"
#include "daemon/ledger.hpp"

#include <chrono>
#include <cstdint>
#include <expected>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace jp::daemon::ops {

using nlohmann::json;

struct Refusal {
    ErrorCode code;
    std::string message;
    std::int64_t retry_after_ms = 0; // rate_limited, too_soon: when to ask again
};
using Reply = std::expected<json, Refusal>;

[[nodiscard]] inline std::unexpected<Refusal>
refuse(ErrorCode code, std::string message, std::int64_t retry = 0) {
    return std::unexpected(Refusal{code, std::move(message), retry});
}

// Nothing when uid may make the call (one taken from its budget), else the refusal that says
// how `what` ("ledger views") are rationed and when to ask again.
[[nodiscard]] inline std::optional<Reply>
rationed(CallBudget& budget, unsigned uid, std::int64_t now, std::string_view what) {
    const auto wait = budget.take(uid, now);
    if (wait <= 0) {
        return std::nullopt;
    }
    return refuse(ErrorCode::rate_limited,
                  fmt::format("{} are limited to {:g} at once and {:g} a second per user", what,
                              budget.burst(), budget.per_second()),
                  wait);
}

[[nodiscard]] inline std::int64_t to_ms(Nanos d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

// A string field of at most max bytes with no control characters; absent gives
// fallback (or a refusal when none).
[[nodiscard]] std::expected<std::string, Refusal>
text_field(const json& req, const char* key, std::size_t max, std::optional<std::string> fallback);

// The session the request names, if this caller may use it.
[[nodiscard]] std::expected<Session*, Refusal>
session_of(DaemonState& d, const Connection& c, const json& req);

[[nodiscard]] inline const History& view(const DaemonState& d, Grant g, std::size_t i) {
    return view_of(d.engine, g, i);
}

using Handler = Reply (*)(DaemonState&, Connection&, const json&, std::int64_t);

// handlers_read.cpp: exact reads, floored readings, streams.
Reply op_read(DaemonState& d, Connection& c, const json& req, std::int64_t now);
Reply op_latest(DaemonState& d, Connection& c, const json& req, std::int64_t now);
Reply op_stream(DaemonState& d, Connection& c, const json& req, std::int64_t now);
// handlers_session.cpp: markers and what a session holds.
Reply op_mark(DaemonState& d, Connection& c, const json& req, std::int64_t now);
Reply op_session(DaemonState& d, Connection& c, const json& req, std::int64_t now);
Reply op_sessions(DaemonState& d, Connection& c, const json& req, std::int64_t now);
Reply op_close(DaemonState& d, Connection& c, const json& req, std::int64_t now);
Reply op_ledger(DaemonState& d, Connection& c, const json& req, std::int64_t now);
// A ledger view as the `ledger` op answers it (docs/daemon-protocol.md).
[[nodiscard]] json ledger_view_json(const LedgerView& v);

} // namespace jp::daemon::ops
