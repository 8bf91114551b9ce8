// SPDX-License-Identifier: BSD-3-Clause
#include "hostlist.hpp"

#include <charconv>

namespace jp::spank {
namespace {

// "01-03" or "7" into names prefix+number+suffix, keeping the width of zero-padded numbers.
bool expand_range(std::string_view range,
                  std::string_view prefix,
                  std::string_view suffix,
                  std::size_t limit,
                  std::vector<std::string>& out) {
    const auto dash = range.find('-');
    const auto lo_s = range.substr(0, dash);
    const auto hi_s = dash == std::string_view::npos ? lo_s : range.substr(dash + 1);
    // A whole number that fits (from_chars leaves the value alone when it does not).
    const auto whole = [](std::string_view s, unsigned long& v) {
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        return !s.empty() && ec == std::errc{} && end == s.data() + s.size();
    };
    unsigned long lo = 0;
    unsigned long hi = 0;
    if (!whole(lo_s, lo) || !whole(hi_s, hi) || hi < lo || hi - lo >= limit - out.size()) {
        return false;
    }
    const std::size_t width = lo_s.size() > 1 && lo_s.front() == '0' ? lo_s.size() : 0;
    // Counted, not `n <= hi`: a range ending at the largest number must not wrap.
    for (unsigned long i = 0; i <= hi - lo; ++i) {
        auto digits = std::to_string(lo + i);
        if (digits.size() < width) {
            digits.insert(0, width - digits.size(), '0');
        }
        out.push_back(std::string{prefix} + digits + std::string{suffix});
    }
    return true;
}

} // namespace

std::optional<std::vector<std::string>> expand_hostlist(std::string_view list, std::size_t limit) {
    std::vector<std::string> out;
    while (!list.empty()) {
        // The next name: up to a comma outside brackets.
        std::size_t end = 0;
        int depth = 0;
        for (; end < list.size() && (depth > 0 || list[end] != ','); ++end) {
            depth += list[end] == '[' ? 1 : list[end] == ']' ? -1 : 0;
            if (depth < 0 || depth > 1) {
                return std::nullopt;
            }
        }
        const auto name = list.substr(0, end);
        list = end < list.size() ? list.substr(end + 1) : std::string_view{};
        const auto open = name.find('[');
        if (open == std::string_view::npos) {
            if (name.empty() || name.find(']') != std::string_view::npos || out.size() >= limit) {
                return std::nullopt;
            }
            out.emplace_back(name);
            continue;
        }
        const auto close = name.find(']', open);
        if (close == std::string_view::npos || name.find('[', close) != std::string_view::npos) {
            return std::nullopt;
        }
        auto ranges = name.substr(open + 1, close - open - 1);
        while (!ranges.empty()) {
            const auto comma = ranges.find(',');
            if (!expand_range(ranges.substr(0, comma), name.substr(0, open), name.substr(close + 1),
                              limit, out)) {
                return std::nullopt;
            }
            ranges =
                comma == std::string_view::npos ? std::string_view{} : ranges.substr(comma + 1);
        }
    }
    if (out.empty()) {
        return std::nullopt;
    }
    return out;
}

} // namespace jp::spank
