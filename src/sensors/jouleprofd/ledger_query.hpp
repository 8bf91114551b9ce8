// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Asks jouleprofd for a session's ledger view (docs/daemon-protocol.md, `ledger`), the pages
// of a grouped one joined.
#include "daemon_client/client.hpp"
#include "daemon_client/ledger_reply.hpp"

#include <cstddef>
#include <cstdint>
#include <expected>
#include <string>

namespace jp::sensors::jouleprofd {

// A grouped view in more pages than this is refused (each page is one rationed call).
inline constexpr std::size_t k_max_ledger_pages = 256;

// The `ledger` view of session over [from_ns, to_ns] (our CLOCK_MONOTONIC), times in ours,
// grouped where groups are given (its pages asked for in turn and joined; a daemon that does
// not group answers per CPU); else why the daemon could not say (an older one, a refusal, a
// malformed reply, pages that do not join). Each call is asked again while the daemon says to
// wait, for up to 5 s.
[[nodiscard]] std::expected<daemon::LedgerReply, std::string>
query_ledger(daemon::Client& client,
             const std::string& session,
             std::int64_t from_ns,
             std::int64_t to_ns,
             const daemon::LedgerGroups& groups) noexcept;

} // namespace jp::sensors::jouleprofd
