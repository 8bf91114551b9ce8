// SPDX-License-Identifier: BSD-3-Clause
// What jouleprof reads from jouleprofd (or from whatever listens on the socket
// a user names): the hello reply (the first line), the channel list (the
// second), then read replies, stream events and ledger views, one JSON object per line.
#include "daemon_client/hello.hpp"
#include "daemon_client/ledger_reply.hpp"
#include "fuzz_input.hpp"
#include "sensors/jouleprofd/offer.hpp"
#include "sensors/jouleprofd/readings.hpp"
#include "trace/time_range.hpp"

#include <cmath>
#include <cstdlib>

namespace jpd = jp::sensors::jouleprofd;

namespace {

void require(bool ok) {
    if (!ok) {
        std::abort();
    }
}

nlohmann::json parse(std::string_view line) {
    return nlohmann::json::parse(line, nullptr, false); // as the client reads a line
}

void readings_in_range(const std::vector<jpd::Reading>& readings) {
    for (const auto& r : readings) {
        require(r.channel >= 0 && jp::trace::time_in_range(r.t_ns) && std::isfinite(r.value));
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto [first, rest] = jp::fuzz::split_first_line(jp::fuzz::bytes(data, size));
    // Our clock around the call: a machine up for a day.
    constexpr std::int64_t k_before = 86'400'000'000'000;
    constexpr std::int64_t k_after = k_before + 2'000'000;
    const auto hello = jp::daemon::parse_hello(parse(first), k_before, k_after);
    std::int64_t offset = 0;
    if (hello) {
        for (const auto d : {hello->interval, hello->floor, hello->jitter}) {
            require(d.count() >= 0 && d <= std::chrono::milliseconds{jp::daemon::k_max_hello_ms});
        }
        offset = hello->clock_offset_ns;
    } else {
        require(hello.error().find('\n') == std::string::npos);
    }
    auto [list, lines] = jp::fuzz::split_first_line(rest);
    try {
        const auto offer = jpd::offered(parse(list), {});
        require(offer.channels.size() == offer.index.size());
        for (const auto& c : offer.channels) {
            for (const auto& p : {c.update_ns, c.averaging_ns}) {
                require(!p || (*p > 0 && *p <= jp::trace::k_max_time_ns));
            }
            for (const auto& w : {c.limit_watts, c.max_watts}) {
                require(!w || (std::isfinite(*w) && *w > 0));
            }
        }
    } catch (const nlohmann::json::exception&) { // a channel without its fields: discovery says so
    }
    while (!lines.empty()) {
        auto [line, next] = jp::fuzz::split_first_line(lines);
        const auto j = parse(line);
        readings_in_range(jpd::reply_readings(j, offset));
        for (const auto& [channel, ns] : jpd::reply_read_times(j)) {
            require(channel >= 0 && ns >= 0 && ns <= 60'000'000'000);
        }
        readings_in_range(jpd::stream_readings(j, "s1", offset));
        // A ledger view, per CPU or grouped: what is read holds what the reader promises, and
        // is written back as read.
        if (const auto l = jp::daemon::parse_ledger(j, offset)) {
            require(!l->segments.empty() && (l->grouped ? l->cpus.empty() : l->groups.empty()));
            for (const auto& seg : l->segments) {
                require(seg.sums.size() == (l->grouped ? l->groups.size() : 0));
                for (std::size_t g = 0; g < seg.sums.size(); ++g) {
                    require(std::isfinite(seg.sums[g]) && seg.sums[g] >= 0 &&
                            seg.sums[g] <= static_cast<double>(l->groups[g].size()) * (1 + 1e-9));
                }
            }
            require(jp::daemon::parse_ledger(jp::daemon::ledger_json(*l), 0).has_value());
        }
        lines = next;
    }
    return 0;
}
