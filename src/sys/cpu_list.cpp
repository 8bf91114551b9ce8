// SPDX-License-Identifier: BSD-3-Clause
#include "sys/cpu_list.hpp"

#include "sys/file.hpp"

#include <charconv>
#include <cstddef>

namespace jp::sys {
namespace {

std::optional<int> whole_number(std::string_view s) {
    int v{};
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size()) {
        return std::nullopt;
    }
    return v;
}

// More CPUs than any Linux kernel supports (NR_CPUS is at most 8192).
constexpr int k_max_cpus = 65536;

// One "a" or "a-b" item of a CPU list.
bool append_range(std::string_view item, std::vector<int>& out) {
    const auto dash = item.find('-');
    const auto first = whole_number(item.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : whole_number(item.substr(dash + 1));
    if (!first || !last || *first < 0 || *last < *first || *last >= k_max_cpus ||
        out.size() + static_cast<std::size_t>(*last - *first) >= k_max_cpus) {
        return false;
    }
    for (int cpu = *first; cpu <= *last; ++cpu) {
        out.push_back(cpu);
    }
    return true;
}

} // namespace

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
    text = trim(text);
    std::vector<int> cpus;
    while (!text.empty()) {
        const auto comma = text.find(',');
        if (!append_range(text.substr(0, comma), cpus)) {
            return std::nullopt;
        }
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    }
    return cpus.empty() ? std::nullopt : std::optional{cpus};
}

} // namespace jp::sys
