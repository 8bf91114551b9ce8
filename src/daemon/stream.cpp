// SPDX-License-Identifier: BSD-3-Clause
// The stream events jouleprofd pushes to sessions that asked for them.
#include "daemon/handlers.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace jp::daemon {

std::string stream_event(DaemonState& d, Session& s, std::int64_t now_ns) {
    if (s.stream_interval_ns <= 0 || now_ns < s.next_push_ns) {
        return {};
    }
    s.next_push_ns = std::max(s.next_push_ns + s.stream_interval_ns, now_ns);
    std::string data;
    std::uint64_t lost = 0;
    for (std::size_t i = 0; i < s.next_seq.size(); ++i) {
        const auto& h = view_of(d.engine, s.grant, i);
        auto& next = s.next_seq[i];
        if (h.empty() || next > h.newest()) {
            continue;
        }
        if (next < h.oldest()) {
            lost += h.oldest() - next;
            next = h.oldest();
        }
        data += fmt::format("{}[{},{}", data.empty() ? "" : ",", i, next);
        for (; next <= h.newest(); ++next) {
            const auto& r = h.at(next);
            data += fmt::format(",{},{}", r.t_ns, r.value);
        }
        data += ']';
    }
    if (data.empty()) {
        return {};
    }
    ++s.pushes;
    return fmt::format(
        "{{\"event\":\"samples\",\"session\":\"{}\",\"seq\":{},\"lost\":{},\"data\":[{}]}}\n", s.id,
        s.pushes, lost, data);
}

} // namespace jp::daemon
