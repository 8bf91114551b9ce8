// SPDX-License-Identifier: BSD-3-Clause
#include "sys/proc.hpp"

#include "sys/file.hpp"

#include <string>
#include <unistd.h>

namespace jp::sys {

std::optional<std::uint64_t> process_start_time(pid_t pid) {
    auto text = read_text("/proc/" + std::to_string(pid) + "/stat");
    if (!text) {
        return std::nullopt;
    }
    // "pid (comm) state ppid ...": comm may hold spaces and ')', so count
    // fields from the last ')'. starttime is field 22; field 3 follows ") ".
    const auto close = text->rfind(')');
    if (close == std::string::npos) {
        return std::nullopt;
    }
    std::string_view rest{*text};
    rest.remove_prefix(close + 1);
    for (int field = 3; field <= 22; ++field) {
        rest = rest.substr(std::min(rest.find_first_not_of(' '), rest.size()));
        const auto end = std::min(rest.find(' '), rest.size());
        if (field == 22) {
            auto v = parse_u64(rest.substr(0, end));
            return v ? std::optional<std::uint64_t>{*v} : std::nullopt;
        }
        rest.remove_prefix(end);
    }
    return std::nullopt;
}

std::optional<std::uint64_t> resident_bytes() {
    auto text = read_text("/proc/self/statm");
    if (!text) {
        return std::nullopt;
    }
    std::string_view s{*text};
    const auto space = s.find(' ');
    if (space == std::string_view::npos) {
        return std::nullopt;
    }
    s.remove_prefix(space + 1);
    auto pages = parse_u64(s.substr(0, s.find(' ')));
    if (!pages) {
        return std::nullopt;
    }
    return *pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

} // namespace jp::sys
