// SPDX-License-Identifier: BSD-3-Clause
#include "cli/status_line.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <string>

namespace jp::cli {

void StatusLine::update(double elapsed_s, const LiveFigures& live, bool estimated) {
    if (!m_enabled) {
        return;
    }
    const auto watts =
        elapsed_s < m_settle_s ? std::string{"… W"} : fmt::format("{:.1f} W", live.watts);
    const auto line =
        fmt::format("\r\033[K[jouleprof] {}  {:.1f} s  {}  {:.1f} J  {}", m_what, elapsed_s, watts,
                    live.joules, estimated ? "estimated" : "measured");
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    m_shown = true;
}

void StatusLine::clear() {
    if (m_shown) {
        std::fputs("\r\033[K", stderr);
        std::fflush(stderr);
        m_shown = false;
    }
}

} // namespace jp::cli
