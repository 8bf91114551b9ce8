// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/jouleprofd/ledger_query.hpp"

#include <chrono>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace jp::sensors::jouleprofd {
namespace {

constexpr auto k_call_timeout = std::chrono::seconds{2};
constexpr auto k_patience = std::chrono::seconds{5};

// Page `next` appended to `all` (the pages before), or why they do not join: the same groups,
// its first segment where the one before said to go on, times ascending.
std::expected<void, std::string>
join(daemon::LedgerReply& all, daemon::LedgerReply next, std::int64_t more_from_ns) {
    if (!next.grouped || next.groups != all.groups || next.segments.front().t_ns != more_from_ns) {
        return std::unexpected(std::string{"pages of the view that do not join"});
    }
    if (all.segments.size() + next.segments.size() > daemon::k_max_ledger_grouped_segments ||
        (all.segments.size() + next.segments.size()) * std::max<std::size_t>(1, all.groups.size()) >
            daemon::k_max_ledger_cells) {
        return std::unexpected(std::string{"a view longer than jouleprof keeps"});
    }
    all.segments.insert(all.segments.end(), std::make_move_iterator(next.segments.begin()),
                        std::make_move_iterator(next.segments.end()));
    return {};
}

} // namespace

std::expected<daemon::LedgerReply, std::string>
query_ledger(daemon::Client& client,
             const std::string& session,
             std::int64_t from_ns,
             std::int64_t to_ns,
             const daemon::LedgerGroups& groups) noexcept {
    try {
        const auto offset = client.hello().clock_offset_ns;
        constexpr std::int64_t k_far = std::int64_t{1} << 61;
        const auto far = [](std::int64_t v) { return v < -k_far || v > k_far; };
        if (far(offset) || far(from_ns) || far(to_ns)) {
            return std::unexpected(std::string{"times out of range"});
        }
        nlohmann::json req{{"op", "ledger"},
                           {"session", session},
                           {"from_ns", from_ns + offset},
                           {"to_ns", to_ns + offset}};
        if (!groups.empty()) {
            req["groups"] = groups;
        }
        std::optional<daemon::LedgerReply> all;
        for (std::size_t page = 0; page < k_max_ledger_pages; ++page) {
            // Many jobs ending at once: the daemon rations views; wait as it says.
            auto r = client.call_patiently(req, k_call_timeout, k_patience);
            if (!r) {
                return std::unexpected(r.error().message);
            }
            auto parsed = daemon::parse_ledger(*r, offset);
            if (!parsed) {
                return std::unexpected(std::string{"a malformed reply"});
            }
            const auto more = r->find("more_from_ns");
            std::optional<std::int64_t> next; // ours
            if (more != r->end() && parsed->grouped) {
                // Further on than this page's last segment, and within the span asked.
                if (!more->is_number_integer() || far(more->get<std::int64_t>())) {
                    return std::unexpected(std::string{"a malformed reply"});
                }
                next = more->get<std::int64_t>() - offset;
                if (*next <= parsed->segments.back().t_ns || *next > to_ns) {
                    return std::unexpected(std::string{"a malformed reply"});
                }
            }
            if (!all) {
                all = std::move(*parsed);
            } else if (auto joined = join(*all, std::move(*parsed),
                                          req["from_ns"].get<std::int64_t>() - offset);
                       !joined) {
                return std::unexpected(joined.error());
            }
            if (!next) {
                return std::move(*all);
            }
            req["from_ns"] = *next + offset;
        }
        return std::unexpected(
            fmt::format("a view in more than {} pages (too many other jobs' beginnings and ends)",
                        k_max_ledger_pages));
    } catch (const std::exception& e) {
        return std::unexpected(std::string{"a malformed reply: "} + e.what());
    }
}

} // namespace jp::sensors::jouleprofd
